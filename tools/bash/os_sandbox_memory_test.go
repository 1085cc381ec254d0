//go:build linux

package bash

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testMemoryCap keeps the memory of these tests modest.
const testMemoryCap = 64 << 20

// memoryUID is the sandbox user of the memory cap tests, used by no
// other test, so a process of it left behind is theirs.
const memoryUID = 54332

// memoryTool is an OS sandbox tool with a memory cap of testMemoryCap,
// skipping where this machine gives no memory cgroup (the label test
// checks that it then says so).
func memoryTool(t *testing.T, limits Limits) (*Bash, string) {
	t.Helper()
	rootOnly(t)
	awaitGone(t, memoryUID)
	limits.MemoryBytes = testMemoryCap
	b, root := osTool(t, WithLimits(limits), WithSandboxUser(memoryUID, memoryUID))
	escapeHelper(t, root)
	return b, root
}

// A command that takes more memory than its call's cap is ended, its
// result says so in a field and in stderr, this process lives on and
// runs the next call, and nothing of the call is left: no process of
// the sandbox user, no cgroup.
func TestOsSandbox_AMemoryCapEndsTheCallThatReachesIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		limits  Limits
		command string
		// notOut is what the command prints only if it was not stopped.
		notOut string
	}{
		// Memory no address space counts, which RLIMIT_AS let grow to
		// 300 MiB under a 128 MiB cap.
		{"a memfd filled past the cap", DefaultLimits, "./escape memfd 256", "wrote 256 MiB"},
		// Eight processes, each far under its address-space cap, hold
		// twice the call's cap together; each holds its memory for a
		// minute, so only the end of the whole call stops them in time.
		{"many processes each under RLIMIT_AS", Limits{AddressSpaceBytes: 1 << 30}, "for i in 1 2 3 4 5 6 7 8; do ./escape hold 16 & done; wait; echo survived", "survived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := memoryTool(t, tc.limits)
			r, err := runTool(t, t.Context(), b, Args{Command: tc.command, TimeoutMS: 30_000})
			if err != nil {
				t.Fatal(err)
			}
			note := fmt.Sprintf("[the call reached its memory cap of %s:", byteSize(testMemoryCap))
			if !r.OutOfMemory || r.TimedOut || r.ExitCode == 0 || strings.Contains(r.Stdout, tc.notOut) || !strings.Contains(r.Stderr, note) {
				t.Errorf("%+v: want the call ended out of memory, stderr saying so", r)
			}
			if n := sandboxProcesses(t, memoryUID); n != 0 {
				t.Errorf("%d processes of the sandbox user outlived the call", n)
			}
			noCallCgroups(t, b)
			r, err = runTool(t, t.Context(), b, Args{Command: "echo next"})
			if err != nil || r.Stdout != "next\n" || r.OutOfMemory {
				t.Errorf("the next call: %+v, %v", r, err)
			}
			awaitReaped(t, memoryUID)
		})
	}
}

// Memory the kernel can take back (the page cache of a file written in
// the workspace) does not end a call: work that streams more than the cap
// through files runs.
func TestOsSandbox_WorkThatStreamsPastTheMemoryCapRuns(t *testing.T) {
	b, _ := memoryTool(t, DefaultLimits)
	r, err := runTool(t, t.Context(), b, Args{Command: "head -c 256M /dev/zero > big && head -c 256M /dev/zero | sha256sum | cut -c1-8 && wc -c < big && rm big", TimeoutMS: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	if r.OutOfMemory || r.ExitCode != 0 || r.Stdout != "a6d72ac7\n268435456\n" {
		t.Errorf("%+v: want 256 MiB streamed through a file and a pipe under a 64 MiB cap", r)
	}
	noCallCgroups(t, b)
}

// /dev/shm is a tmpfs whose files outlive the call: a command may not
// write there at all, so it cannot park memory past its cap.
func TestOsSandbox_DevShmCannotHoldMemoryPastTheCall(t *testing.T) {
	b, _ := memoryTool(t, DefaultLimits)
	name := fmt.Sprintf("/dev/shm/helikon-memory-test-%d", os.Getpid())
	t.Cleanup(func() { _ = os.Remove(name) })
	r, err := runTool(t, t.Context(), b, Args{Command: "head -c 128M /dev/zero > " + name, TimeoutMS: 30_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); err == nil || !strings.Contains(r.Stderr, "Permission denied") {
		t.Errorf("%+v: want the write to /dev/shm refused and no file made", r)
	}
}

// The label says whether this machine gave the OS sandbox its memory cap;
// asked for one where no memory cgroup can be made, construction fails
// closed, and the default cap is named as missing.
func TestOsSandbox_TheLabelSaysWhetherTheMemoryCapBinds(t *testing.T) {
	b, _ := osTool(t)
	l := b.backend.(*OsSandboxBackend).l
	label := b.Guarantees().Label
	switch {
	case l.maxMem == 0 && !strings.Contains(label, "no memory cap (no memory cgroup here)"):
		t.Errorf("no memory cgroup here, and the label %q does not say so", label)
	case l.maxMem != 0 && (l.maxMem != DefaultMemoryCap || !strings.Contains(label, "at most 2 GiB of memory a call (memory cgroup")):
		t.Errorf("label %q does not name the default cap %d (enforced: %d)", label, DefaultMemoryCap, l.maxMem)
	}
	b, _ = osTool(t, withoutCgroup())
	if label := b.Guarantees().Label; !strings.Contains(label, "no memory cap (no memory cgroup here)") {
		t.Errorf("without a cgroup, label %q", label)
	}
	sb := openSandbox(t)
	searchable(t, sb.Dir())
	lim := DefaultLimits
	lim.MemoryBytes = testMemoryCap
	if _, err := NewOsSandboxBackend(sb, WithLimits(lim), withoutCgroup()); !errors.Is(err, ErrNoMemoryCgroup) {
		t.Errorf("an explicit cap with no memory cgroup: err = %v, want ErrNoMemoryCgroup", err)
	}
	if _, err := NewHostBackend(sb, WithLimits(lim), withoutCgroup()); !errors.Is(err, ErrNoMemoryCgroup) {
		t.Errorf("host, an explicit cap with no memory cgroup: err = %v, want ErrNoMemoryCgroup", err)
	}
}

// noCallCgroups fails the test if a cgroup this process made for a call
// is still there.
func noCallCgroups(t *testing.T, b *Bash) {
	t.Helper()
	g := b.backend.(interface{ local() *local }).local().cgroups
	if g == nil {
		return
	}
	prefix := fmt.Sprintf("helikon-bash-%d-", os.Getpid())
	for _, dir := range []string{g.v2, g.pids, g.memory} {
		if dir == "" {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) {
				t.Errorf("cgroup %s outlived its call", filepath.Join(dir, e.Name()))
			}
		}
	}
}

// The out-of-memory kill count is read from cgroup v2's memory.events and
// from cgroup v1's memory.oom_control alike.
func TestEventCount_ReadsTheOOMKillsOfBothCgroupVersions(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"v2 memory.events", "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 1\n", 2},
		{"v1 memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n", 4},
		{"none", "oom_kill_disable 0\nunder_oom 0\n", 0},
	} {
		if got := eventCount([]byte(tc.text), "oom_kill"); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
