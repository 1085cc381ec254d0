//go:build linux

package bash

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// A hostile command compiles its own helper and makes the calls the
// filter refuses through every other door the kernel has: the i386 ABI
// (int $0x80) and x32 on amd64, raw clone with namespace flags, clone3.
func TestOsSandbox_ForeignABIsAndNamespaceClonesAreRefused(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	b, root := osTool(t)
	helper := escapeHelper(t, root)
	i386 := "errno ENOSYS\n"
	if runtime.GOARCH == "amd64" && !kernelHasI386ABI(t, helper) {
		// The door is shut for everyone: the same call faults outside
		// the sandbox. The cases still run, so a call that got through
		// (an "ok") fails them.
		t.Log("this kernel has no i386 ABI (int $0x80 faults outside the sandbox too): the i386 cases expect the fault")
		i386 = "no i386 ABI\n"
	}
	cases := []struct {
		op, want string
		amd64    bool
	}{
		{"i386-getpid", i386, true},
		{"i386-socket", i386, true},
		{fmt.Sprintf("i386-connect %d", ln.Addr().(*net.TCPAddr).Port), i386, true},
		{"i386-unshare", i386, true},
		{"i386-setsid", i386, true},
		{"i386-keyctl", i386, true},
		{"i386-ptrace", i386, true},
		{"x32-socket", "errno ENOSYS\n", true},
		{"clone-newuser", "errno EPERM\n", false},
		{"clone-newpid", "errno EPERM\n", false},
		{"clone-parent", "errno EPERM\n", false},
		{"clone3-newuser", "errno ENOSYS\n", false},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			if c.amd64 && runtime.GOARCH != "amd64" {
				t.Skip("the helper makes this call through amd64's foreign ABIs only")
			}
			wantEscape(t, b, c.op, c.want)
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the loopback listener accepted %d connections", n)
	}
	// Normal forks still work: bash's own, and a program's.
	r, err := runTool(t, t.Context(), b, Args{Command: "(echo sub) && echo $(echo cmd) | cat && /usr/bin/env true && echo done"})
	if err != nil || r.Stdout != "sub\ncmd\ndone\n" {
		t.Errorf("plain forks: %+v, %v", r, err)
	}
}

// System V IPC lives in the host's IPC namespace, beside Landlock's
// reach: a segment a command makes outlives the call (a 64 MiB one was
// left behind, owned by the sandbox user and counted against no cap of
// the call) and one a host process made for everyone is the command's
// to read and write. Every System V call is refused.
func TestOsSandbox_SystemVIPCIsRefused(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	host, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmCtl(host, unix.IPC_RMID, nil)
	for _, op := range []string{"shmget", "msgget", "semget", fmt.Sprintf("shmat %d", host)} {
		t.Run(op, func(t *testing.T) {
			wantEscape(t, b, op, "errno EPERM\n")
		})
	}
}

// Landlock governs opening a directory, not watching it: with inotify
// (or fanotify's unprivileged form) a command read the names of files
// made in /tmp, and those of files opened in /etc, though it may list
// neither. Both are refused: inotify_init as absent, so programs that
// watch files (tail -f) fall back to polling, fanotify_init with EPERM.
func TestOsSandbox_DirectoriesOutsideCannotBeWatched(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	for _, c := range []struct{ op, want string }{
		{"inotify /tmp", "errno ENOSYS\n"},
		{"inotify /etc", "errno ENOSYS\n"},
		{"fanotify /tmp", "errno EPERM\n"},
	} {
		t.Run(c.op, func(t *testing.T) {
			wantEscape(t, b, c.op, c.want)
		})
	}
}

// The socket filter refused socket() of every family but AF_UNIX and left
// socketpair() open, which creates two sockets of the family it is given
// before that family's code refuses the pair: a command reached the
// creation code of every protocol the kernel has (and could load one as a
// module), and a pair of AF_TIPC sockets, whose code has had local
// privilege escalations, where the kernel has TIPC. Only AF_UNIX pairs
// are made.
func TestOsSandbox_SocketPairsOfOtherFamiliesAreRefused(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	for _, c := range []struct {
		name, op, want string
	}{
		{"AF_INET", fmt.Sprintf("socketpair %d %d", unix.AF_INET, unix.SOCK_STREAM), "errno EPERM\n"},
		{"AF_TIPC", fmt.Sprintf("socketpair %d %d", unix.AF_TIPC, unix.SOCK_SEQPACKET), "errno EPERM\n"},
		{"AF_VSOCK", fmt.Sprintf("socketpair %d %d", unix.AF_VSOCK, unix.SOCK_STREAM), "errno EPERM\n"},
		{"AF_UNIX", fmt.Sprintf("socketpair %d %d", unix.AF_UNIX, unix.SOCK_STREAM), "ok 0\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantEscape(t, b, c.op, c.want)
		})
	}
}

// listmount and statmount (Linux 6.8) read the mount table without a
// path, which /proc/self/mountinfo, out of Landlock's reach, would give:
// a command listed every mount of the host's namespace, with where it is
// mounted (/mnt/… directories of the machine's own tools among them).
// Both answer ENOSYS, as on a kernel without them.
func TestOsSandbox_TheMountTableIsOutOfReach(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	for _, op := range []string{"listmount", "statmount"} {
		t.Run(op, func(t *testing.T) {
			wantEscape(t, b, op, "errno ENOSYS\n")
		})
	}
}

// wantEscape runs the escape helper's op in b and wants its stdout.
// kernelHasI386ABI runs the helper's i386 getpid outside any sandbox:
// kernels built or booted without IA32 emulation answer int $0x80 with
// a fault in every process, which the helper reports as "no i386 ABI".
// Anything else but a pid fails the test, so a broken helper is not
// read as a missing ABI.
func kernelHasI386ABI(t *testing.T, helper string) bool {
	t.Helper()
	out, err := exec.Command(helper, "i386-getpid").Output()
	switch got := string(out); {
	case err != nil:
		t.Fatalf("the i386 probe outside the sandbox: %v: %q", err, got)
	case got == "no i386 ABI\n":
		return false
	case !strings.HasPrefix(got, "ok "):
		t.Fatalf("the i386 probe outside the sandbox printed %q, want a pid or no i386 ABI", got)
	}
	return true
}

func wantEscape(t *testing.T, b *Bash, op, want string) {
	t.Helper()
	r, err := runTool(t, t.Context(), b, Args{Command: "./escape " + op})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != want {
		t.Errorf("%+v, want stdout %q", r, want)
	}
}
