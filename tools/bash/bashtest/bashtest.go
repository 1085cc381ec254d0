// Package bashtest is the conformance suite every [bash.ExecutionBackend]
// passes: results, timeouts, cancellation, output caps and, for backends
// that run commands as local processes, no orphans.
package bashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	for _, c := range []struct {
		name    string
		command string
		timeout time.Duration
	}{
		{"NoOrphansAfterTimeout", "sleep 300 & echo $!; wait", 300 * time.Millisecond},
		{"NoOrphansAfterExit", "sleep 300 >/dev/null 2>&1 & echo $!", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			be := newBackend(t)
			res, err := be.Run(t.Context(), bash.Request{Command: c.command, Timeout: c.timeout})
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(res.Stdout))
			if err != nil {
				t.Fatalf("stdout %q is not the child's pid", res.Stdout)
			}
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("process %d outlived the command", pid)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
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
