//go:build linux

package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The default process cap is in force, as RLIMIT_NPROC of the sandbox
// user (which the command cannot raise) and as a pids cgroup where this
// process may make one; the label names both.
func TestOsSandbox_ADefaultProcessCapBinds(t *testing.T) {
	rootOnly(t)
	b, root := osTool(t)
	escapeHelper(t, root)
	r, err := runTool(t, t.Context(), b, Args{Command: "ulimit -Hu; ulimit -u 100000 2>/dev/null && echo raised"})
	if err != nil || r.Stdout != fmt.Sprintf("%d\n", DefaultProcessCap) {
		t.Errorf("%+v, %v; want the hard limit %d, not raised", r, err, DefaultProcessCap)
	}
	label := b.Guarantees().Label
	if !strings.Contains(label, fmt.Sprintf("at most %d processes ", DefaultProcessCap)) || !strings.Contains(label, "RLIMIT_NPROC") {
		t.Errorf("label %q does not name the cap", label)
	}
}

// RLIMIT_NPROC counts every process of the sandbox user, so the calls
// running at once share it: the label says so, and says a call is capped
// on its own only where a pids cgroup does it.
func TestOsSandbox_TheLabelSaysWhoseProcessesTheCapCounts(t *testing.T) {
	rootOnly(t)
	for _, tc := range []struct {
		name string
		opts []HostOption
		want []string
	}{
		{"no cgroup", []HostOption{withoutCgroup()}, []string{"for the sandbox user's calls together (RLIMIT_NPROC; no pids cgroup here to cap a call)"}},
		{"cgroup", nil, []string{"processes a call (pids cgroup)", "for the sandbox user's calls together (RLIMIT_NPROC)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := osTool(t, tc.opts...)
			label := b.Guarantees().Label
			if tc.name == "cgroup" && strings.Contains(label, "no pids cgroup here") {
				t.Skip("no cgroup can be made here: " + label)
			}
			for _, w := range tc.want {
				if !strings.Contains(label, w) {
					t.Errorf("label %q does not say %q", label, w)
				}
			}
		})
	}
}

// A program that starts children until the kernel refuses one stops at
// the cap (the shell and the program itself count too).
func TestOsSandbox_AProgramStartingChildrenStopsAtTheCap(t *testing.T) {
	rootOnly(t)
	const limit = 64
	awaitGone(t, bombUID)
	b, root := osTool(t, WithLimits(Limits{Processes: limit}), WithSandboxUser(bombUID, bombUID))
	escapeHelper(t, root)
	r, err := runTool(t, t.Context(), b, Args{Command: fmt.Sprintf("./escape spawn %d", 4*limit)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil || n >= limit || n < limit/2 {
		t.Errorf("%+v: want fewer than %d children started", r, limit)
	}
	awaitReaped(t, bombUID)
}

// A fork bomb that tries to leave its process group first stays bounded
// by the cap while it runs, and nothing of it is left after the call.
func TestOsSandbox_AForkBombIsBoundedAndEndsWithTheCall(t *testing.T) {
	rootOnly(t)
	const limit = 64
	// A uid of its own, so the count sees only this test's processes.
	uid := bombUID
	awaitGone(t, uid)
	b, root := osTool(t, WithLimits(Limits{Processes: limit}), WithSandboxUser(uid, uid))
	escapeHelper(t, root)
	done := make(chan Result, 1)
	go func() {
		r, err := runTool(t, t.Context(), b, Args{Command: "./escape setpgid; ./escape i386-unshare; bomb() { bomb | bomb & }; bomb; sleep 30", TimeoutMS: 3000})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	peak := 0
	var r Result
	for running := true; running; {
		select {
		case r = <-done:
			running = false
		case <-time.After(5 * time.Millisecond):
			peak = max(peak, sandboxProcesses(t, uid))
		}
	}
	if !r.TimedOut {
		t.Errorf("%+v: want the bomb to run until the timeout", r)
	}
	if peak > limit {
		t.Errorf("the bomb ran %d processes at once, past the cap of %d", peak, limit)
	}
	if peak < limit/2 {
		t.Errorf("the bomb peaked at %d processes: it did not run", peak)
	}
	if n := sandboxProcesses(t, uid); n != 0 {
		t.Errorf("%d processes of the sandbox user outlived the call", n)
	}
	awaitReaped(t, uid)
}

// bombUID is the sandbox user of the fork bomb test, used by no other.
const bombUID = 54329

// awaitReaped waits (at most 10 s) until init has reaped the killed
// processes of uid: their zombies count against its RLIMIT_NPROC, and a
// test that follows needs its whole cap.
func awaitReaped(t *testing.T, uid int) {
	deadline := time.Now().Add(10 * time.Second)
	for zombies(t, uid) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitGone waits (at most 10 s) until no process of uid runs or waits
// to be reaped: a test with a process cap of uid needs the whole cap, and
// processes of an earlier run of these tests (one a moment before on a
// loaded machine) count against it (the helper died unable to start its
// second thread).
func awaitGone(t *testing.T, uid int) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		eachProcessOf(t, uid, func(string) { n++ })
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombies counts the zombies of uid.
func zombies(t *testing.T, uid int) int {
	n := 0
	eachProcessOf(t, uid, func(status string) {
		if strings.Contains(status, "\nState:\tZ") {
			n++
		}
	})
	return n
}

// sandboxProcesses counts the live processes of uid.
func sandboxProcesses(t *testing.T, uid int) int {
	n := 0
	eachProcessOf(t, uid, func(status string) {
		if !strings.Contains(status, "\nState:\tZ") {
			n++
		}
	})
	return n
}

// eachProcessOf calls f with the status of every process of uid.
func eachProcessOf(t *testing.T, uid int, f func(status string)) {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("\nUid:\t%d\t", uid)
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err == nil && strings.Contains(string(b), want) {
			f(string(b))
		}
	}
}
