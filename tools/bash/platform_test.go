package bash

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// unixGOOS are the systems of Go's unix build constraint: those with
// process groups, where a HostBackend runs.
var unixGOOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "linux": true, "netbsd": true, "openbsd": true, "solaris": true,
}

// Each local backend fails construction with ErrUnsupportedPlatform,
// naming the system, exactly where it cannot run: the host backend off
// Unix, the OS sandbox off Linux. Elsewhere it may fail (a kernel without
// Landlock), but not with that error.
func TestLocalBackends_FailConstructionWithErrUnsupportedPlatformOnlyWhereTheyCannotRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) error
		runs  bool
	}{
		{"host", func(t *testing.T) error { _, err := NewHostBackend(openSandbox(t)); return err }, unixGOOS[runtime.GOOS]},
		{"os sandbox", func(t *testing.T) error { _, err := NewOsSandboxBackend(openSandbox(t)); return err }, runtime.GOOS == "linux"},
		// What the OS sandbox checks past the host's, reached on a Unix
		// other than Linux.
		{"kernel confinement", func(*testing.T) error { return kernelSupport() }, runtime.GOOS == "linux"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build(t)
			switch {
			case tc.runs && errors.Is(err, ErrUnsupportedPlatform):
				t.Fatalf("%s: %v, want no ErrUnsupportedPlatform", runtime.GOOS, err)
			case !tc.runs && !errors.Is(err, ErrUnsupportedPlatform):
				t.Fatalf("%s: err = %v, want ErrUnsupportedPlatform", runtime.GOOS, err)
			case !tc.runs && !strings.Contains(err.Error(), runtime.GOOS):
				t.Fatalf("err = %q, want it to name %s", err, runtime.GOOS)
			}
		})
	}
}
