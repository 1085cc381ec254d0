//go:build linux

package bash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapers starts processes that leave the shell's process group and
// session every way a command can: util-linux setsid, a double fork
// whose middle process exits (the grandchild is reparented), and the
// helper calling setpgid and setsid natively and through the i386 ABI.
// Each writes its pid to a file p1…p3; the line returns once all have.
const escapers = `setsid sleep 300 >/dev/null 2>&1 & echo $! > p1
( ./escape leave-and-sleep p2 >/dev/null 2>&1 & )
./escape leave-and-sleep p3 >/dev/null 2>&1 &
while ! [ -s p2 ] || ! [ -s p3 ]; do sleep 0.01; done
`

// pids reads the pids the escapers wrote in dir.
func escaperPids(t *testing.T, dir string) []int {
	t.Helper()
	var out []int
	for _, f := range []string{"p1", "p2", "p3"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s: %q", f, b)
		}
		out = append(out, pid)
	}
	return out
}

// Every process a call starts is dead when the call returns, after a
// normal end, a timeout and a cancellation, whatever it did to its
// process group or session, on both local backends.
func TestLocalBackends_NoProcessOutlivesItsCallWhateverItsGroup(t *testing.T) {
	backends := map[string]func(t *testing.T) (ExecutionBackend, string){
		"host": func(t *testing.T) (ExecutionBackend, string) {
			sb := openSandbox(t)
			be, err := NewHostBackend(sb)
			if err != nil {
				t.Fatal(err)
			}
			return be, sb.Dir()
		},
		"os-sandbox": func(t *testing.T) (ExecutionBackend, string) {
			b, dir := osTool(t)
			return b.backend, dir
		},
		// As where no cgroup can be made (a container's read-only
		// cgroupfs): run as root, a call ends with its PID namespace.
		"os-sandbox-without-cgroup": func(t *testing.T) (ExecutionBackend, string) {
			b, dir := osTool(t, withoutCgroup())
			return b.backend, dir
		},
		// Nor a PID namespace (a container without CAP_SYS_ADMIN): the
		// calls of the sandbox user end by killing every process of
		// its uid.
		"os-sandbox-without-cgroup-or-pid-namespace": func(t *testing.T) (ExecutionBackend, string) {
			// A uid of its own: the sweep kills every process of it,
			// and the other subtests run meanwhile.
			b, dir := osTool(t, withoutCgroup(), withoutPIDNamespace(), WithSandboxUser(sweepUID, sweepUID))
			return b.backend, dir
		},
	}
	for name, newBackend := range backends {
		for _, end := range []string{"exit", "timeout", "cancel"} {
			t.Run(name+"/"+end, func(t *testing.T) {
				t.Parallel()
				be, dir := newBackend(t)
				if l := be.(interface{ local() *local }).local(); l.cgroups == nil && !l.sweeps() && !l.pidNS() {
					if l := be.Guarantees().Label; !strings.Contains(l, "the process group killed (a process that leaves it may outlive the call)") {
						t.Fatalf("no cgroup here, and the label %q does not say so", l)
					}
					t.Skip("this process may not make a cgroup v2 here (not root, no delegated subtree): the backend kills the process group only, and its label says so")
				}
				escapeHelper(t, dir)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				req := Request{Command: escapers}
				switch end {
				case "timeout":
					req.Command += "sleep 300"
					req.Timeout = 2 * time.Second
				case "cancel":
					req.Command += "sleep 300"
					go func() {
						for _, err := os.Stat(filepath.Join(dir, "p3")); err != nil; _, err = os.Stat(filepath.Join(dir, "p3")) {
							time.Sleep(10 * time.Millisecond)
						}
						time.Sleep(100 * time.Millisecond)
						if n := len(workspaceProcesses(t, dir)); n < 3 {
							t.Errorf("%d processes of the call found in %s while it runs, want the escapers' 3 at least", n, dir)
						}
						cancel()
					}()
				}
				res, err := be.Run(ctx, req)
				switch {
				case end == "cancel" && !errors.Is(err, context.Canceled):
					t.Fatalf("%+v, %v; want context.Canceled", res, err)
				case end != "cancel" && err != nil:
					t.Fatal(err)
				case end == "timeout" && !res.TimedOut:
					t.Fatalf("%+v: want timed out", res)
				}
				// Each escaper wrote its pid (to show it ran), which in a
				// PID namespace is the namespace's: the host's processes
				// of the call are found by their working directory.
				escaperPids(t, dir)
				for _, pid := range workspaceProcesses(t, dir) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d outlived the call", pid)
				}
			})
		}
	}
}

// withoutCgroup makes a backend act as where no cgroup can be made.
func withoutCgroup() HostOption { return func(c *hostConfig) { c.noCgroup = true } }

// withoutPIDNamespace makes the OS sandbox act as where no PID namespace
// can be made, for the fallbacks, and for tests of what another
// mechanism holds on its own (a namespace would hide the process it
// tries to reach).
func withoutPIDNamespace() HostOption { return func(c *hostConfig) { c.noPIDNS = true } }

// workspaceProcesses returns the processes that run (zombies aside) with
// dir as their working directory: those of a call in dir, whatever their
// pid namespace.
func workspaceProcesses(t *testing.T, dir string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sweepUID is the sandbox user of the test of the uid sweep, used by no
// other test.
const sweepUID = 54331
