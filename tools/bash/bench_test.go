//go:build unix

package bash

import (
	"os/exec"
	"testing"

	"github.com/paigasus/helikon/internal/benchpair"
)

// runTrue runs `true` through be and fails b unless it exits 0.
func runTrue(b *testing.B, be ExecutionBackend) func() {
	return func() {
		r, err := be.Run(b.Context(), Request{Command: "true"})
		if err != nil || r.ExitCode != 0 {
			b.Fatal(r, err)
		}
	}
}

// execRun returns a func that runs cmd's program and arguments afresh.
func execRun(b *testing.B, name string, args ...string) func() {
	return func() {
		if err := exec.Command(name, args...).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBashTrueHost runs `true` through a HostBackend (bash -c, the
// process group, output capture, the default limits set by the shell's
// ulimit and their status pipe) beside exec.Command("true").
func BenchmarkBashTrueHost(b *testing.B) {
	be, err := NewHostBackend(openSandbox(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	benchpair.Run(b, "exec", execRun(b, "true"), "bash", runTrue(b, be))
}

// BenchmarkBashTrueHostNoLimits is the same without limits: no prefix,
// no status pipe.
func BenchmarkBashTrueHostNoLimits(b *testing.B) {
	be, err := NewHostBackend(openSandbox(b), WithLimits(Limits{}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	benchpair.Run(b, "exec", execRun(b, "true"), "bash", runTrue(b, be))
}

// BenchmarkBashTrueHostVsBash pairs the HostBackend with
// exec.Command(bash, "-c", "true"): the floor of any Bash tool, so the
// ratio is the backend's own cost.
func BenchmarkBashTrueHostVsBash(b *testing.B) {
	be, err := NewHostBackend(openSandbox(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	benchpair.Run(b, "bare", execRun(b, be.l.shell, "-c", "true"), "bash", runTrue(b, be))
}
