package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// children returns the pids of this process's live children, read from
// /proc (script workers need Linux, so the test does too).
func children(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to read processes from")
	}
	var kids []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // it exited meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(f[1])); ppid == os.Getpid() {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			kids = append(kids, pid)
		}
	}
	return kids
}

// TestRun_LeavesNoScriptWorkerBehind runs the sample's triage agent, whose
// handoff target calls a Starlark tool in a worker process, and checks
// that no worker is left once the command returns: a warm worker outlived
// helikon run until it noticed its stdin had closed.
func TestRun_LeavesNoScriptWorkerBehind(t *testing.T) {
	dir := sampleDir(t)
	t.Chdir(dir)
	// Earlier tests' children (the shared browser) are not the run's.
	before := children(t)
	if r := run(t, context.Background(), "", "run", "--agent", "triage", question); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.errOut)
	}
	for _, pid := range children(t) {
		if !slices.Contains(before, pid) {
			exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			t.Errorf("after helikon run returned, process %d (%s) it started is still running", pid, exe)
		}
	}
}
