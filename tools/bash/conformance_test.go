package bash_test

import (
	"os"
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
		if err != nil {
			t.Fatal(err)
		}
		return be
	}, bashtest.Options{LocalProcesses: true})
}

func TestOsSandboxBackend_Conformance(t *testing.T) {
	bashtest.Run(t, func(t *testing.T) bash.ExecutionBackend {
		be, err := bash.NewOsSandboxBackend(sandboxFor(t))
		if err != nil {
			// The kernel lacks Landlock or seccomp: the error names which.
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
		return be
	}, bashtest.Options{LocalProcesses: true})
}
