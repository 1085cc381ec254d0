//go:build linux

package bash

import (
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/tools/sandbox"
)

// BenchmarkBashTrueOsSandbox runs `true` under the whole confinement
// (Landlock with scopes, seccomp, the privilege drop and the call's PID,
// IPC and UTS namespaces when run as root, the call's cgroup, its kill and removal, the process cap) beside the
// same through a HostBackend (sub-benchmark host) and beside a bare
// exec.Command(bash, "-c", "true") (sub-benchmark bare), and reports what
// the sandbox adds to a call (ns-added/op).
func BenchmarkBashTrueOsSandbox(b *testing.B) {
	sb, be := benchOsSandbox(b)
	host, err := NewHostBackend(sb)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("host", func(b *testing.B) {
		b.ReportAllocs()
		tHost, tOS := benchpair.Run(b, "host", runTrue(b, host), "os", runTrue(b, be))
		b.ReportMetric(float64((tOS-tHost)/time.Duration(b.N)), "ns-added/op")
	})
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		tBare, tOS := benchpair.Run(b, "bare", execRun(b, be.l.shell, "-c", "true"), "os", runTrue(b, be))
		b.ReportMetric(float64((tOS-tBare)/time.Duration(b.N)), "ns-added/op")
	})
}

// BenchmarkBashTrueOsSandboxMemoryCap pairs the OS sandbox with its
// memory cgroup per call (made, capped, watched in cgroup v1, read and
// removed) against the same backend without one, and reports what the
// memory cap adds to a call (ns-added/op).
func BenchmarkBashTrueOsSandboxMemoryCap(b *testing.B) {
	sb, capped := benchOsSandbox(b)
	if capped.l.maxMem == 0 {
		b.Skip("no memory cgroup here")
	}
	uncapped, err := NewOsSandboxBackend(sb)
	if err != nil {
		b.Fatal(err)
	}
	uncapped.l.maxMem = 0
	b.ReportAllocs()
	tOff, tOn := benchpair.Run(b, "nocap", runTrue(b, uncapped), "cap", runTrue(b, capped))
	b.ReportMetric(float64((tOn-tOff)/time.Duration(b.N)), "ns-added/op")
}

// BenchmarkBashTrueOsSandboxPIDNamespace pairs the OS sandbox with a
// PID, IPC and UTS namespace per call (unshared by the starting thread,
// the shell kept as the namespace's first process, the namespace torn
// down with it) against the same backend without them, and reports what
// the namespaces add to a call (ns-added/op).
func BenchmarkBashTrueOsSandboxPIDNamespace(b *testing.B) {
	sb, with := benchOsSandbox(b)
	if !with.l.pidNS() {
		b.Skipf("no PID namespace here (%s)", with.l.noPIDNS)
	}
	without, err := NewOsSandboxBackend(sb, withoutPIDNamespace())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	tOff, tOn := benchpair.Run(b, "nons", runTrue(b, without), "ns", runTrue(b, with))
	b.ReportMetric(float64((tOn-tOff)/time.Duration(b.N)), "ns-added/op")
}

// benchOsSandbox returns a workspace and an OsSandboxBackend on it, or
// skips where the kernel cannot confine.
func benchOsSandbox(b *testing.B) (*sandbox.Sandbox, *OsSandboxBackend) {
	if err := kernelSupport(); err != nil {
		b.Skip(err)
	}
	sb := openSandbox(b)
	searchable(b, sb.Dir())
	be, err := NewOsSandboxBackend(sb)
	if err != nil {
		b.Fatal(err)
	}
	return sb, be
}
