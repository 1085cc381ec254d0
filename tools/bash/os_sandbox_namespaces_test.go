//go:build linux

package bash

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pidNSOnly skips a test of what the PID namespace hides where the
// backend has none (an unprivileged process), after checking that the
// label says so.
func pidNSOnly(t *testing.T, b *Bash) {
	t.Helper()
	if l := b.backend.(*OsSandboxBackend).l; !l.pidNS() {
		if label := b.Guarantees().Label; !strings.Contains(label, "no PID namespace (") {
			t.Fatalf("no PID namespace here, and the label %q does not say so", label)
		}
		t.Skipf("no PID namespace here (%s), which the label says", l.noPIDNS)
	}
}

// A command walked the host's pids with the calls that need no
// permission over a process (getsid, getpgid, kill with signal 0,
// sched_getaffinity, getpriority, sched_getscheduler, pidfd_open) and
// found every process and thread of the host, this one among them. In
// the call's PID namespace it finds its call's processes only: the shell,
// a sleep it started, and itself.
func TestOsSandbox_TheHostsProcessesAreInvisible(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	pidNSOnly(t, b)
	if l := b.Guarantees().Label; !strings.Contains(l, "a PID, IPC and UTS namespace per call") {
		t.Errorf("label %q does not name the namespaces", l)
	}
	// Every pid the host has handed out lately, and this process's.
	top := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			top = max(top, pid)
		}
	}
	r, err := runTool(t, t.Context(), b, Args{Command: fmt.Sprintf("sleep 30 & echo $!; ./escape pids %d; kill $!", top+1000)})
	if err != nil {
		t.Fatal(err)
	}
	var sleep, self int
	var seen string
	if _, err := fmt.Sscanf(r.Stdout, "%d\nself %d seen", &sleep, &self); err != nil {
		t.Fatalf("%+v: %v", r, err)
	}
	if _, after, ok := strings.Cut(r.Stdout, " seen"); ok {
		seen = strings.TrimSpace(after)
	}
	want := []int{1, sleep, self}
	slices.Sort(want)
	var got []int
	for _, f := range strings.Fields(seen) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		got = append(got, pid)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the walk of pids 1–%d found %d processes %v, want the call's own %v", top+1000, len(got), got, want)
	}
	if slices.Contains(got, os.Getpid()) && os.Getpid() > 3 {
		t.Errorf("the walk found this process (pid %d)", os.Getpid())
	}
}

// Each call is in a PID, an IPC and a UTS namespace of its own: not this
// process's, and not another call's. The two calls run at once: the
// kernel reuses the number of a namespace that is gone.
func TestOsSandbox_EachCallHasNamespacesOfItsOwn(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	pidNSOnly(t, b)
	var host []string
	for _, ns := range []string{"pid", "ipc", "uts"} {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		host = append(host, l)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			r, err := runTool(t, t.Context(), b, Args{Command: fmt.Sprintf("./escape ns > ns%d; while ! [ -e done ]; do sleep 0.01; done", i)})
			if err != nil || r.ExitCode != 0 {
				t.Errorf("%+v, %v", r, err)
			}
		})
	}
	defer wg.Wait()
	var calls [][]string
	for i := range 2 {
		var got []string
		for deadline := time.Now().Add(10 * time.Second); len(got) < len(host) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(root, fmt.Sprintf("ns%d", i)))
			got = strings.Fields(string(b))
		}
		if len(got) != len(host) {
			t.Fatalf("call %d: namespaces %q, want %d", i, got, len(host))
		}
		calls = append(calls, got)
	}
	if err := os.WriteFile(filepath.Join(root, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, ns := range calls[0] {
		if ns == host[i] || calls[1][i] == host[i] {
			t.Errorf("a call is in this process's namespace %s", host[i])
		}
		if ns == calls[1][i] {
			t.Errorf("two calls share the namespace %s", ns)
		}
	}
}

// POSIX message queues belong to the IPC namespace, and seccomp lets
// mq_open through. Landlock refused opening a queue this process made
// (mode 0666) with EACCES, but a name no queue has with ENOENT, so a
// command could tell which queues the host has. In the call's IPC
// namespace the host's queue is not there at all.
func TestOsSandbox_MessageQueuesOfTheHostAreInvisible(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	pidNSOnly(t, b)
	hostQueue := fmt.Sprintf("helikon-host-%d", os.Getpid())
	fd, err := mqOpen(hostQueue, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	defer mqUnlink(hostQueue)
	defer mqUnlink(hostQueue + "-call")
	wantEscape(t, b, "mq-open "+hostQueue, "errno 2\n") // ENOENT, as for no queue
	wantEscape(t, b, "mq-open "+hostQueue+"-none", "errno 2\n")
	// Making one is Landlock's to refuse, with or without the namespace.
	wantEscape(t, b, "mq-make "+hostQueue+"-call", "errno EACCES\n")
}

// mqOpen makes mq_open(name, flags), mode 0666.
func mqOpen(name string, flags int) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	fd, _, e := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), 0o666, 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// mqUnlink removes the queue name, if there is one.
func mqUnlink(name string) {
	if p, err := unix.BytePtrFromString(name); err == nil {
		unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0)
	}
}

// Asked to require the namespaces, construction fails with
// ErrNoPIDNamespace where it cannot make them, and otherwise runs with
// them; not asked, it runs without them and its label says why.
func TestNewOsSandboxBackend_RequirePIDNamespaceFailsClosed(t *testing.T) {
	if err := kernelSupport(); err != nil {
		t.Skip(err)
	}
	priv, err := privileged()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		opts    []HostOption
		refused bool
	}{
		{"as this process is", nil, !priv},
		{"where none can be made", []HostOption{withoutPIDNamespace()}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := openSandbox(t)
			searchable(t, sb.Dir())
			_, err := NewOsSandboxBackend(sb, append(c.opts, RequirePIDNamespace())...)
			if c.refused != errors.Is(err, ErrNoPIDNamespace) || !c.refused && err != nil {
				t.Fatalf("err = %v, want ErrNoPIDNamespace %v", err, c.refused)
			}
			be, err := NewOsSandboxBackend(sb, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			label := be.Guarantees().Label
			if c.refused != strings.Contains(label, "no PID namespace (") || c.refused == strings.Contains(label, "a PID, IPC and UTS namespace per call") {
				t.Errorf("label %q, want it to say whether there is a PID namespace (%v)", label, !c.refused)
			}
		})
	}
}

// A privileged process the kernel refuses the namespaces (root without
// CAP_SYS_ADMIN, as in a container's default profile) runs its calls
// without them and says so in its label, and fails construction with
// ErrNoPIDNamespace when asked to require them. The root run starts this
// test binary again with CAP_SYS_ADMIN out of its bounding set
// (setpriv), where unshare is refused for real.
func TestOsSandbox_WithoutCapSysAdminTheLabelSaysThereIsNoPIDNamespace(t *testing.T) {
	rootOnly(t)
	if err := kernelSupport(); err != nil {
		t.Skip(err)
	}
	if os.Getenv("HELIKON_BASH_NO_SYS_ADMIN") == "" {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skipf("no setpriv (util-linux) to drop CAP_SYS_ADMIN with: %v", err)
		}
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		name := "TestOsSandbox_WithoutCapSysAdminTheLabelSaysThereIsNoPIDNamespace"
		cmd := exec.Command(setpriv, "--bounding-set", "-sys_admin", "--", self, "-test.run", "^"+name+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "HELIKON_BASH_NO_SYS_ADMIN=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
			t.Fatalf("the run without CAP_SYS_ADMIN: %v\n%s", err, out)
		}
		t.Logf("without CAP_SYS_ADMIN:\n%s", out)
		return
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil || caps[0].Effective&(1<<unix.CAP_SYS_ADMIN) != 0 || caps[0].Effective&(1<<unix.CAP_SETUID) == 0 {
		t.Fatalf("this run should hold root's capabilities but CAP_SYS_ADMIN: %+v, %v", caps, err)
	}
	b, _ := osTool(t)
	label := b.Guarantees().Label
	t.Log(label)
	if !strings.Contains(label, "no PID namespace (unshare: operation not permitted), nor an IPC or UTS one") ||
		!strings.Contains(label, "the host's POSIX message queues can be probed by name") || strings.Contains(label, "a PID, IPC and UTS namespace per call") {
		t.Errorf("label %q, want it to say there is no PID, IPC or UTS namespace, and why", label)
	}
	if r, err := runTool(t, t.Context(), b, Args{Command: "echo $$"}); err != nil || r.Stdout == "1\n" || r.ExitCode != 0 {
		t.Errorf("%+v, %v: want the command to run, and not as the first process of a namespace", r, err)
	}
	sb := openSandbox(t)
	searchable(t, sb.Dir())
	if _, err := NewOsSandboxBackend(sb, RequirePIDNamespace()); !errors.Is(err, ErrNoPIDNamespace) || !strings.Contains(err.Error(), "operation not permitted") {
		t.Errorf("RequirePIDNamespace without CAP_SYS_ADMIN: err = %v, want ErrNoPIDNamespace saying why", err)
	}
}

// The os package checks once per process that pidfds work, by forking a
// child that exits at once. Were that child forked from the thread that
// has unshared the call's PID namespace, it would be the namespace's
// first process, and its exit would leave the namespace refusing the
// shell's fork (ENOMEM). This test binary has forked long before, so the
// root run starts it again, where the backend's probe is the process's
// first fork.
func TestOsSandbox_ACallThatIsTheProcesssFirstForkStarts(t *testing.T) {
	rootOnly(t)
	if err := kernelSupport(); err != nil {
		t.Skip(err)
	}
	const name = "TestOsSandbox_ACallThatIsTheProcesssFirstForkStarts"
	if os.Getenv("HELIKON_BASH_FIRST_FORK") == "" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, "-test.run", "^"+name+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "HELIKON_BASH_FIRST_FORK=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
			t.Fatalf("the run whose first fork is a call: %v\n%s", err, out)
		}
		return
	}
	b, _ := osTool(t)
	pidNSOnly(t, b)
	if r, err := runTool(t, t.Context(), b, Args{Command: "echo $$"}); err != nil || r.Stdout != "1\n" {
		t.Fatalf("%+v, %v: want the shell started, the first process of its namespace", r, err)
	}
}
