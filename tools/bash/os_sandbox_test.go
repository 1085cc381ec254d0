//go:build linux

package bash

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// osTool returns the Bash tool on an OsSandboxBackend. The kernel here
// must enforce Landlock and seccomp; outside CI a kernel that cannot is
// reported as a skip naming the missing feature, in CI it fails.
func osTool(t *testing.T, opts ...HostOption) (*Bash, string) {
	t.Helper()
	if err := kernelSupport(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sb := openSandbox(t)
	searchable(t, sb.Dir())
	be, err := NewOsSandboxBackend(sb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(be)
	if err != nil {
		t.Fatal(err)
	}
	return b, sb.Dir()
}

// searchable lets every user through the directory above dir (the
// test's temporary directory, 0700), so the unprivileged user a root
// test's commands run as reaches the workspace.
func searchable(t testing.TB, dir string) {
	t.Helper()
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		t.Fatal(err)
	}
}

func TestOsSandbox_ContainsFilesNetworkAndSyscalls(t *testing.T) {
	outsideDir := t.TempDir()
	secret := filepath.Join(outsideDir, "shadow")
	if err := os.WriteFile(secret, []byte("root:$6$secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from loopback\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	b, root := osTool(t)
	cases := []struct {
		name    string
		cmd     string
		wantOK  bool
		wantOut string
	}{
		{"work inside the root", "mkdir -p a/b && echo hi > a/b/f && cat a/b/f && ls a", true, "hi\nb\n"},
		{"programs from /usr run", "printf '%s\\n' x | sort | wc -l", true, "1\n"},
		{"read a secret outside", "cat " + secret, false, ""},
		{"read /etc/shadow", "cat /etc/shadow", false, ""},
		{"list the home of root", "ls /root", false, ""},
		{"write outside", "echo pwned > " + filepath.Join(outsideDir, "new"), false, ""},
		{"write over the secret", "echo pwned > " + secret, false, ""},
		{"write in /tmp", "echo pwned > /tmp/helikon-os-sandbox-escape", false, ""},
		{"escape through a symlink", "ln -s " + outsideDir + " out && cat out/shadow", false, ""},
		{"escape through /proc/self/root", "cat /proc/self/root" + secret, false, ""},
		// Run as a normal user, the command has this process's uid, and
		// only the confinement keeps it from its environment and files.
		// By this process's pid, not $PPID: in a PID namespace the
		// shell has no parent ($PPID is 0).
		{"read this process's environment", fmt.Sprintf("cat /proc/%d/environ >/dev/null", os.Getpid()), false, ""},
		{"list this process's working directory", fmt.Sprintf("ls /proc/%d/cwd/ >/dev/null", os.Getpid()), false, ""},
		{"bash /dev/tcp to a loopback listener", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port), false, ""},
		{"a new session (leaving the group)", "setsid true 2>&1 | grep -q 'not permitted' && exit 1", false, ""},
		{"unshare", "unshare -U true", false, ""},
		// The tests run as root in CI, where only the filter stops these.
		{"mount", "mkdir -p m && mount -t tmpfs none m", false, ""},
	}
	if strace, err := exec.LookPath("strace"); err == nil {
		cases = append(cases, struct {
			name    string
			cmd     string
			wantOK  bool
			wantOut string
		}{"ptrace", strace + " -o /dev/null true", false, ""})
	} else {
		t.Log("strace is not installed: the ptrace case is not run")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := runTool(t, t.Context(), b, Args{Command: c.cmd})
			if err != nil {
				t.Fatal(err)
			}
			if ok := r.ExitCode == 0; ok != c.wantOK {
				t.Fatalf("exit %d, want ok=%v; stdout %q stderr %q", r.ExitCode, c.wantOK, r.Stdout, r.Stderr)
			}
			if c.wantOK && r.Stdout != c.wantOut {
				t.Errorf("stdout %q, want %q", r.Stdout, c.wantOut)
			}
			if !c.wantOK && strings.Contains(r.Stdout, "secret") || strings.Contains(r.Stdout, "hello from loopback") {
				t.Errorf("leaked: %q", r.Stdout)
			}
		})
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "root:$6$secret\n" {
		t.Errorf("the secret changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outsideDir, "new")); err == nil {
		t.Error("a file was created outside")
	}
	if _, err := os.Stat("/tmp/helikon-os-sandbox-escape"); err == nil {
		os.Remove("/tmp/helikon-os-sandbox-escape")
		t.Error("a file was created in /tmp")
	}
	if _, err := os.Stat(filepath.Join(root, "a/b/f")); err != nil {
		t.Errorf("work inside the root is missing: %v", err)
	}
	if curl, err := exec.LookPath("curl"); err == nil {
		r, err := runTool(t, t.Context(), b, Args{Command: fmt.Sprintf("%s -sS --max-time 5 http://127.0.0.1:%d/", curl, port)})
		if err != nil || r.ExitCode == 0 || strings.Contains(r.Stdout, "hello") {
			t.Errorf("curl to loopback: %+v, %v", r, err)
		}
	}
	g := b.Guarantees()
	if g.Filesystem != OsKernel || g.Network != OsKernel || g.Syscalls != OsKernel || !strings.HasPrefix(g.Label, "os-sandbox (landlock+seccomp; ") || !strings.Contains(g.Label, b.backend.(*OsSandboxBackend).l.lifetime()) {
		t.Errorf("guarantees %+v", g)
	}
}

func TestOsSandbox_WithNetworkRelaxesOnlyTheNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("hello from loopback\n"))
			c.Close()
		}
	}()
	b, _ := osTool(t, WithNetwork())
	r, err := runTool(t, t.Context(), b, Args{Command: fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3; cat /etc/shadow", ln.Addr().(*net.TCPAddr).Port)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "hello from loopback\n" || r.ExitCode == 0 {
		t.Fatalf("result %+v: want the socket to work and /etc/shadow still denied", r)
	}
	if g := b.Guarantees(); g.Network != None || g.Filesystem != OsKernel || g.Syscalls != OsKernel {
		t.Errorf("guarantees %+v", g)
	}
}

func TestOsSandbox_UnixSocketsOnlyWhenAsked(t *testing.T) {
	// The system interpreter: a user's shim under $HOME is outside the
	// read-only paths.
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("python3 is not installed; it opens the sockets of this test")
	}
	script := py + ` -c 'import socket,sys
for f in (socket.AF_UNIX, socket.AF_INET):
    try: socket.socket(f); print("ok")
    except OSError as e: print("denied")'`
	for _, c := range []struct {
		opts []HostOption
		want string
	}{{nil, "denied\ndenied\n"}, {[]HostOption{WithUnixSockets()}, "ok\ndenied\n"}} {
		b, _ := osTool(t, append(c.opts, WithReadOnlyPaths(append(DefaultReadOnlyPaths, "/etc/python3")...))...)
		r, err := runTool(t, t.Context(), b, Args{Command: script})
		if err != nil || r.Stdout != c.want {
			t.Errorf("opts %d: %+v, %v; want %q", len(c.opts), r, err, c.want)
		}
	}
}

func TestOsSandbox_NoOrphansOnTimeout(t *testing.T) {
	b, root := osTool(t)
	r, err := runTool(t, t.Context(), b, Args{Command: forkSleeper, TimeoutMS: 300})
	if err != nil || !r.TimedOut {
		t.Fatalf("%+v, %v", r, err)
	}
	childPid(t, root) // it ran; its pid may be its PID namespace's
	for deadline := time.Now().Add(5 * time.Second); len(workspaceProcesses(t, root)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v outlived the command", workspaceProcesses(t, root))
		}
	}
}

// confinement returns the no_new_privs and seccomp filter lines of every
// thread of this process, by thread id.
func confinement(t *testing.T) map[string]string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		var keep []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "Seccomp_filters:") {
				keep = append(keep, strings.Join(strings.Fields(line), " "))
			}
		}
		out[task.Name()] = strings.Join(keep, ", ")
	}
	return out
}

func TestOsSandbox_OnlyTheCommandIsConfinedNotThisProcess(t *testing.T) {
	before := confinement(t)[strconv.Itoa(os.Getpid())]
	b, root := osTool(t)
	for range 4 {
		r, err := runTool(t, t.Context(), b, Args{Command: "cat /etc/shadow"})
		if err != nil || r.ExitCode == 0 {
			t.Fatalf("%+v, %v: want the command confined", r, err)
		}
	}
	// The threads that started the commands end with them; every
	// thread left is as the process was before.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var confined []string
		for tid, c := range confinement(t) {
			if c != before {
				confined = append(confined, tid+": "+c)
			}
		}
		if len(confined) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads of this process are confined (was %q): %v", before, confined)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// And this process still opens sockets and files outside the root,
	// from several goroutines, so several threads.
	outside := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Errorf("listen: %v", err)
				return
			}
			ln.Close()
			if _, err := os.ReadFile(outside); err != nil {
				t.Errorf("read outside: %v", err)
			}
		})
	}
	wg.Wait()
	if _, err := os.Stat(filepath.Join(root, "..")); err != nil {
		t.Errorf("stat the root's parent: %v", err)
	}
}

func TestOsSandbox_ResourceLimitsAreInForce(t *testing.T) {
	b, _ := osTool(t)
	r, err := runTool(t, t.Context(), b, Args{Command: "ulimit -Ht; ulimit -Hf; ulimit -Hv"})
	if err != nil || r.Stdout != "300\n1048576\n8388608\n" {
		t.Fatalf("%+v, %v; want the default limits as hard limits", r, err)
	}
}
