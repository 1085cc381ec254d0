//go:build linux

package bash

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
		{"bash /dev/tcp to a loopback listener", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port), false, ""},
		{"a new session (leaving the group)", "setsid true 2>&1 | grep -q 'not permitted' && exit 1", false, ""},
		{"unshare", "unshare -U true", false, ""},
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
	if g := b.Guarantees(); g != (Guarantees{OsKernel, OsKernel, OsKernel, "os-sandbox (landlock+seccomp)"}) {
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
	waitDead(t, childPid(t, root))
}
