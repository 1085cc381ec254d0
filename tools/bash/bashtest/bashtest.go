// Package bashtest is the conformance suite every [bash.ExecutionBackend]
// passes: results, timeouts, cancellation, output caps and, for backends
// that run commands as local processes, no orphans.
package bashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon/tools/bash"
)

// Options says what a backend under test can be held to.
type Options struct {
	// LocalProcesses marks a backend whose commands are processes of
	// this host, so the suite can check that none outlives its call.
	LocalProcesses bool
}

// Run runs the suite on backends made by newBackend, one per subtest.
func Run(t *testing.T, newBackend func(t *testing.T) bash.ExecutionBackend, opts Options) {
	t.Run("ExitCodeAndStreams", func(t *testing.T) {
		be := newBackend(t)
		res, err := be.Run(t.Context(), bash.Request{Command: "echo out; echo err >&2; exit 7"})
		if err != nil {
			t.Fatal(err)
		}
		if res != (bash.Result{ExitCode: 7, Stdout: "out\n", Stderr: "err\n"}) {
			t.Errorf("result %+v", res)
		}
	})
	t.Run("TimeoutEndsTheCommand", func(t *testing.T) {
		be := newBackend(t)
		start := time.Now()
		res, err := be.Run(t.Context(), bash.Request{Command: "echo started; sleep 30", Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Stdout != "started\n" || time.Since(start) > 20*time.Second {
			t.Errorf("result %+v after %v: want timed out with the output so far", res, time.Since(start))
		}
	})
	t.Run("CancellationReturnsTheContextError", func(t *testing.T) {
		be := newBackend(t)
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		_, err := be.Run(ctx, bash.Request{Command: "sleep 30"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's error", err)
		}
	})
	t.Run("OutputIsCappedHeadAndTail", func(t *testing.T) {
		be := newBackend(t)
		res, err := be.Run(t.Context(), bash.Request{Command: "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END", OutputLimit: 200})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Stdout, "BEGIN\n") || !strings.HasSuffix(res.Stdout, "\nEND\n") || !strings.Contains(res.Stdout, "bytes elided") || len(res.Stdout) > 300 {
			t.Errorf("stdout of %d bytes: %.80q…", len(res.Stdout), res.Stdout)
		}
	})
	t.Run("GuaranteesHaveALabel", func(t *testing.T) {
		if g := newBackend(t).Guarantees(); g.Label == "" {
			t.Errorf("guarantees %+v without a label", g)
		}
	})
	if !opts.LocalProcesses {
		return
	}
	// The orphan is found by a name of its own in its command line, not
	// by the pid the command prints: a backend that runs each call in a
	// PID namespace of its own prints a pid of that namespace.
	for _, c := range []struct {
		name    string
		command string
		timeout time.Duration
	}{
		{"NoOrphansAfterTimeout", "(exec -a %s sleep 300) & wait", 300 * time.Millisecond},
		{"NoOrphansAfterExit", "(exec -a %s sleep 300) >/dev/null &", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("helikon-orphan-%d-%d", os.Getpid(), orphanSeq.Add(1))
			if !sawOrphanFinder(t) {
				return
			}
			be := newBackend(t)
			// The name is joined by the shell, so only the renamed
			// orphan's command line holds it whole, not the shell's.
			res, err := be.Run(t.Context(), bash.Request{Command: fmt.Sprintf(c.command, splitName(name)), Timeout: c.timeout})
			if err != nil {
				t.Fatal(err)
			}
			// A shell that could not start the orphan says so: the test
			// would then pass with nothing to find.
			if res.Stderr != "" || (c.timeout == 0 && res.ExitCode != 0) {
				t.Fatalf("the command that starts the orphan failed: %+v", res)
			}
			deadline := time.Now().Add(5 * time.Second)
			for pids := running(name); len(pids) > 0; pids = running(name) {
				if time.Now().After(deadline) {
					t.Fatalf("processes %v outlived the command", pids)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// orphanSeq numbers the orphans of this process's suites.
var orphanSeq atomic.Uint64

// sawOrphanFinder checks that running finds a process of this host by the
// name in its command line, so a search that finds nothing anywhere does
// not pass the orphan tests. Without /proc it skips the test.
func sawOrphanFinder(t *testing.T) bool {
	t.Helper()
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skipf("no /proc here to look for orphans in: %v", err)
	}
	name := fmt.Sprintf("helikon-orphan-check-%d-%d", os.Getpid(), orphanSeq.Add(1))
	cmd := exec.Command("bash", "-c", "exec -a "+splitName(name)+" sleep 300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if len(running(name)) > 0 {
			return true
		}
	}
	t.Errorf("no process named %s found in /proc, though this test started one", name)
	return false
}

// splitName is name as a shell word that the shell joins from two
// quoted halves: the shell's own command line does not hold name whole,
// so only a process the shell named with it does.
func splitName(name string) string {
	h := len(name) / 2
	return "'" + name[:h] + "''" + name[h:] + "'"
}

// running returns the pids of the processes that run and whose command
// line holds name (a zombie runs nothing and has none).
func running(name string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), name) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid runs; a zombie runs nothing.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
