package starlarktool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/starlarktool"
)

// TestNew_WithoutTheHookFailsClosed runs a program whose main did not
// call WorkerMain: no script runs, and New and Compile say what to add.
func TestNew_WithoutTheHookFailsClosed(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestNoHookHost$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), noHookEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "--- PASS: TestNoHookHost"; !strings.Contains(string(out), want) {
		t.Fatalf("the child did not pass TestNoHookHost:\n%s", out)
	}
}

// TestNoHookHost is the program without the hook, run only as the child
// of TestNew_WithoutTheHookFailsClosed.
func TestNoHookHost(t *testing.T) {
	if os.Getenv(noHookEnv) == "" {
		t.Skip("runs only in a test binary started without the hook")
	}
	_, err := starlarktool.New("t", "", objectParams, "t.star", "def run(args):\n    return 1\n")
	if !errors.Is(err, starlarktool.ErrNoWorker) {
		t.Errorf("New: err = %v, want ErrNoWorker", err)
	}
	_, err = starlarktool.Compile("t.star", "def run(args):\n    return 1\n")
	if !errors.Is(err, starlarktool.ErrNoWorker) {
		t.Errorf("Compile: err = %v, want ErrNoWorker", err)
	}
}

// TestTool_ConcurrentCallsShareTheWorkers calls one tool from more
// goroutines than the pool runs workers: every call gets its own answer.
func TestTool_ConcurrentCallsShareTheWorkers(t *testing.T) {
	tool, err := starlarktool.New("t", "", objectParams, "t.star", "def run(args):\n    return {\"n\": args[\"n\"] * 2}\n")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*5)
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				n := g*100 + i
				out, err := tool.Call(&helikon.ToolContext{Context: context.Background()}, json.RawMessage(fmt.Sprintf(`{"n": %d}`, n)))
				if want := fmt.Sprintf(`{"n":%d}`, 2*n); err != nil || string(out.Content) != want {
					errs <- fmt.Errorf("call %d: got %s, %v; want %s", n, out.Content, err, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTool_AWorkerStoppedByACapIsReplaced pins that the pool goes on
// serving after its worker was killed at the time cap and after one died
// at the memory cap.
func TestTool_AWorkerStoppedByACapIsReplaced(t *testing.T) {
	// A long time cap: under load the collector slows the run to the
	// memory cap, which is what this test waits for.
	lim := starlarktool.Limits{MemoryBytes: 64 << 20, Timeout: 20 * time.Second}
	tool, err := starlarktool.New("t", "", objectParams, "t.star", `
def run(args):
    if args["what"] == "memory":
        return len("x" * (1 << 29))
    return args["what"]
`, starlarktool.WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"memory", "ok", "memory", "ok"} {
		out, err := tool.Call(&helikon.ToolContext{Context: context.Background()}, json.RawMessage(`{"what": "`+what+`"}`))
		var se *starlarktool.ScriptError
		switch {
		case what == "memory" && (!errors.As(err, &se) || se.Limit != starlarktool.LimitMemory):
			t.Fatalf("err = %v, want the memory cap", err)
		case what == "ok" && (err != nil || string(out.Content) != `"ok"`):
			t.Fatalf("after a worker died: %s, %v", out.Content, err)
		}
	}
}
