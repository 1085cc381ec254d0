package bash_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/bash/bashtest"
	"github.com/paigasus/helikon/tools/sandbox"
)

func sandboxFor(t *testing.T) *sandbox.Sandbox {
	sb, err := sandbox.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

func TestHostBackend_Conformance(t *testing.T) {
	bashtest.Run(t, func(t *testing.T) bash.ExecutionBackend {
		be, err := bash.NewHostBackend(sandboxFor(t))
		if errors.Is(err, bash.ErrUnsupportedPlatform) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		return be
	}, bashtest.Options{LocalProcesses: true})
}

func TestOsSandboxBackend_Conformance(t *testing.T) {
	bashtest.Run(t, func(t *testing.T) bash.ExecutionBackend {
		sb := sandboxFor(t)
		// The unprivileged user a root test's commands run as must get
		// through the test's 0700 temporary directory.
		if err := os.Chmod(filepath.Dir(sb.Dir()), 0o711); err != nil {
			t.Fatal(err)
		}
		be, err := bash.NewOsSandboxBackend(sb)
		if err != nil {
			// The kernel lacks Landlock or seccomp, or the system is not
			// Linux: the error names which.
			if os.Getenv("CI") == "true" && !errors.Is(err, bash.ErrUnsupportedPlatform) {
				t.Fatal(err)
			}
			t.Skip(err)
		}
		return be
	}, bashtest.Options{LocalProcesses: true})
}
