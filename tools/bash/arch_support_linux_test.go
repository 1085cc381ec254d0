//go:build linux

package bash

import "testing"

// TestArchSupport_ArchitecturesWithMultiplexedSyscallsAreRefused pins that
// the OS sandbox fails closed where ipc(2) and socketcall(2) would carry
// System V IPC and sockets past a filter that names only the direct calls.
func TestArchSupport_ArchitecturesWithMultiplexedSyscallsAreRefused(t *testing.T) {
	for _, tt := range []struct {
		goarch string
		ok     bool
	}{
		{"amd64", true}, {"arm64", true}, {"arm", true},
		{"386", false}, {"s390x", false}, {"ppc64le", false}, {"mips", false}, {"riscv64", false},
	} {
		if err := archSupport(tt.goarch); (err == nil) != tt.ok {
			t.Errorf("archSupport(%q) = %v, want ok %v", tt.goarch, err, tt.ok)
		}
	}
}
