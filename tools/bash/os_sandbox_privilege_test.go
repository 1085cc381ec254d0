//go:build linux

package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rootOnly skips a test of what the privilege drop closes unless this
// process is root, which is the case it covers (CI runs as root).
func rootOnly(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" && os.Getenv("HELIKON_BASH_AS_USER") == "" {
			// CI runs as root (.ci/run installs packages): a run that is
			// not would skip every test of the privilege drop unseen.
			t.Fatal("CI=true but this process is not root, and this test of a privileged backend needs root")
		}
		t.Skip("the privilege drop applies to a privileged process; this one is not root")
	}
}

// Run as root, a confined command is the sandbox user with every
// capability set empty and no_new_privs, in a workspace it owns.
func TestOsSandbox_RootDropsEverythingBeforeTheCommand(t *testing.T) {
	rootOnly(t)
	b, root := osTool(t)
	escapeHelper(t, root)
	r, err := runTool(t, t.Context(), b, Args{Command: "./escape ids"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("uid %d euid %d gid %d egid %d groups []\neffective 0 permitted 0 inheritable 0 bounding 0 ambient 0 no_new_privs 1\n", DefaultSandboxUID, DefaultSandboxUID, DefaultSandboxGID, DefaultSandboxGID)
	if r.Stdout != want {
		t.Errorf("%+v\nwant stdout %q", r, want)
	}
	if !strings.Contains(b.Guarantees().Label, fmt.Sprintf("uid %d with no capabilities", DefaultSandboxUID)) {
		t.Errorf("label %q does not name the user", b.Guarantees().Label)
	}
}

// What root could do outside the workspace with its capabilities, which
// Landlock does not govern (metadata, signals, the host's name, devices,
// limits), fails for the command.
func TestOsSandbox_RootsCapabilitiesDoNotReachTheCommand(t *testing.T) {
	rootOnly(t)
	// A root-owned file outside, in a directory every user may enter.
	outsideDir := t.TempDir()
	if err := os.Chmod(outsideDir, 0o755); err != nil {
		t.Fatal(err)
	}
	searchable(t, outsideDir)
	outside := filepath.Join(outsideDir, "victim")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Lstat(outside)
	if err != nil {
		t.Fatal(err)
	}
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}

	// Without the PID namespace, which would hide the process to kill,
	// and the UTS one, whose host name is the call's: the privilege drop
	// alone is tested.
	b, root := osTool(t, withoutPIDNamespace())
	escapeHelper(t, root)
	cases := []struct{ name, cmd string }{
		{"chmod outside", "chmod 777 " + outside},
		{"chmod outside (raw)", "./escape chmod " + outside + " | grep -qx 'ok 0'"},
		{"chown outside", fmt.Sprintf("chown %d %s", DefaultSandboxUID, outside)},
		{"chown outside (raw)", "./escape chown " + outside + " | grep -qx 'ok 0'"},
		{"touch outside", "touch " + outside},
		{"touch outside with a date", "touch -d 2000-01-01 " + outside},
		{"utimes outside (raw)", "./escape utimes " + outside + " | grep -qx 'ok 0'"},
		{"setxattr user outside", "./escape setxattr-user " + outside + " | grep -qx 'ok 0'"},
		{"setxattr trusted outside", "./escape setxattr-trusted " + outside + " | grep -qx 'ok 0'"},
		// Host files get the mode and name they have, so a broken
		// sandbox fails the test without changing this machine.
		{"chmod /etc/passwd", "chmod $(stat -c %a /etc/passwd) /etc/passwd"},
		{"kill a process outside", fmt.Sprintf("kill -9 %d", victim.Process.Pid)},
		{"kill a process outside (raw)", fmt.Sprintf("./escape kill %d | grep -qx 'ok 0'", victim.Process.Pid)},
		{"signal this process", fmt.Sprintf("kill -0 %d", os.Getpid())},
		{"set the hostname", "hostname " + host},
		{"set the hostname (raw)", "./escape sethostname " + host + " | grep -qx 'ok 0'"},
		{"mknod /dev/mem", "mknod mem c 1 1"},
		{"mknod /dev/mem (raw)", "./escape mknod-mem mem2 | grep -qx 'ok 0'"},
		{"raise a hard limit", "ulimit -Ht unlimited"},
		{"raise RLIMIT_NPROC (raw)", "./escape raise-nproc | grep -qx 'ok 0'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := runTool(t, t.Context(), b, Args{Command: c.cmd})
			if err != nil {
				t.Fatal(err)
			}
			if r.ExitCode == 0 {
				t.Errorf("succeeded: %+v", r)
			}
		})
	}
	after, err := os.Lstat(outside)
	if err != nil {
		t.Fatal(err)
	}
	st0, st1 := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
	if before.Mode() != after.Mode() || st0.Uid != st1.Uid || !before.ModTime().Equal(after.ModTime()) {
		t.Errorf("the file outside changed: %v %d %v → %v %d %v", before.Mode(), st0.Uid, before.ModTime(), after.Mode(), st1.Uid, after.ModTime())
	}
	if sz, err := syscall.Getxattr(outside, "user.helikon", make([]byte, 64)); err == nil {
		t.Errorf("the file outside got an xattr (%d bytes)", sz)
	}
	if h, _ := os.Hostname(); h != host {
		t.Errorf("the hostname changed to %q", h)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside was killed: %v", err)
	}
	for _, f := range []string{"mem", "mem2"} {
		if fi, err := os.Lstat(filepath.Join(root, f)); err == nil && fi.Mode()&os.ModeDevice != 0 {
			t.Errorf("a device node %s was made", f)
		}
	}
}

// The workspace is the sandbox user's: files that were there before the
// backend was built can be changed in place, and what the command makes
// is the sandbox user's too.
func TestOsSandbox_TheWorkspaceIsWritableToTheSandboxUser(t *testing.T) {
	rootOnly(t)
	sb := openSandbox(t)
	searchable(t, sb.Dir())
	if err := os.MkdirAll(filepath.Join(sb.Dir(), "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sb.Dir(), "src", "old.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	be, err := NewOsSandboxBackend(sb)
	if err != nil {
		t.Fatal(err)
	}
	r, err := be.Run(t.Context(), Request{Command: "echo more >> src/old.txt && mkdir -p new && echo x > new/f && cat src/old.txt && stat -c %u new/f"})
	if err != nil || r.Stdout != fmt.Sprintf("old\nmore\n%d\n", DefaultSandboxUID) {
		t.Fatalf("%+v, %v", r, err)
	}
}

// Construction fails closed, naming why, when the sandbox user cannot
// run there: a workspace behind a directory it may not enter, or a
// default id the host already names.
func TestNewOsSandboxBackend_FailsClosedWhenItCannotDrop(t *testing.T) {
	rootOnly(t)
	sb := openSandbox(t) // its parent stays 0700
	_, err := NewOsSandboxBackend(sb)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("uid %d", DefaultSandboxUID)) || !strings.Contains(err.Error(), "searchable") {
		t.Errorf("a workspace the sandbox user cannot reach: err = %v", err)
	}
	sb2 := openSandbox(t)
	searchable(t, sb2.Dir())
	_, err = NewOsSandboxBackend(sb2, WithSandboxUser(0, 0))
	if err == nil || !strings.Contains(err.Error(), "above 0") {
		t.Errorf("root as the sandbox user: err = %v", err)
	}
	start := time.Now()
	be, err := NewOsSandboxBackend(sb2, WithSandboxUser(54321, 54322))
	if err != nil {
		t.Fatal(err)
	}
	r, err := be.Run(t.Context(), Request{Command: "id -u; id -g"})
	if err != nil || r.Stdout != "54321\n54322\n" {
		t.Errorf("WithSandboxUser: %+v, %v (after %v)", r, err, time.Since(start))
	}
}
