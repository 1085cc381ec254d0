package starlarktool

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Script tools fail to build with ErrUnsupportedPlatform, naming the
// system, exactly where a worker's memory cannot be capped: off Linux.
func TestCompile_FailsWithErrUnsupportedPlatformOnlyOffLinux(t *testing.T) {
	_, err := Compile("ok.star", "def run(args):\n    return 1\n")
	switch linux := runtime.GOOS == "linux"; {
	case linux && err != nil:
		t.Fatalf("%s: %v, want the script compiled", runtime.GOOS, err)
	case !linux && !errors.Is(err, ErrUnsupportedPlatform):
		t.Fatalf("%s: err = %v, want ErrUnsupportedPlatform", runtime.GOOS, err)
	case !linux && !strings.Contains(err.Error(), runtime.GOOS):
		t.Fatalf("err = %q, want it to name %s", err, runtime.GOOS)
	}
}
