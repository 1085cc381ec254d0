package bash

import (
	"os/exec"
	"testing"

	"github.com/paigasus/helikon/internal/benchpair"
)

// benchBackend pairs running `true` through be with exec.Command("true").
func benchBackend(b *testing.B, be ExecutionBackend) {
	b.ReportAllocs()
	benchpair.Run(b, "exec", func() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}, "bash", func() {
		r, err := be.Run(b.Context(), Request{Command: "true"})
		if err != nil || r.ExitCode != 0 {
			b.Fatal(r, err)
		}
	})
}

// BenchmarkBashTrueHost runs `true` through a HostBackend (bash -c, the
// process group, output capture) with the default limits, so through the
// re-executed launcher, beside exec.Command("true").
func BenchmarkBashTrueHost(b *testing.B) {
	be, err := NewHostBackend(openSandbox(b))
	if err != nil {
		b.Fatal(err)
	}
	benchBackend(b, be)
}

// BenchmarkBashTrueHostNoLimits is the same without limits: no launcher.
func BenchmarkBashTrueHostNoLimits(b *testing.B) {
	be, err := NewHostBackend(openSandbox(b), WithLimits(Limits{}))
	if err != nil {
		b.Fatal(err)
	}
	benchBackend(b, be)
}

// BenchmarkBashTrueOsSandbox runs `true` under Landlock and seccomp.
func BenchmarkBashTrueOsSandbox(b *testing.B) {
	if err := kernelSupport(); err != nil {
		b.Skip(err)
	}
	be, err := NewOsSandboxBackend(openSandbox(b))
	if err != nil {
		b.Fatal(err)
	}
	benchBackend(b, be)
}
