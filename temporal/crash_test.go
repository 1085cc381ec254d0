package temporal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slowtest"
)

// The crash-resume worker runs in its own process: the test binary
// re-executed with these variables set (see TestMain).
const (
	workerProcessEnv = "HELIKON_TEMPORAL_WORKER_PROCESS"
	workerAddrEnv    = "HELIKON_TEMPORAL_WORKER_ADDR"
	workerQueueEnv   = "HELIKON_TEMPORAL_WORKER_QUEUE"
	workerCountEnv   = "HELIKON_TEMPORAL_WORKER_COUNT"
)

// ledger appends one line per side effect to a file shared by every worker
// process, so executions can be counted across crashes.
type ledger string

var ledgerMu sync.Mutex

func (l ledger) add(line string) error {
	ledgerMu.Lock()
	defer ledgerMu.Unlock()
	f, err := os.OpenFile(string(l), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l ledger) lines() []string {
	b, _ := os.ReadFile(string(l))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (l ledger) count(line string) int {
	n := 0
	for _, s := range l.lines() {
		if s == line {
			n++
		}
	}
	return n
}

type runArgs struct {
	Run string `json:"run"`
}

// crashAgent is the agent of the crash-resume test: it calls record, then
// slow, then answers with both results.
func crashAgent(l ledger) (*helikon.LLMAgent, error) {
	record, slow := crashTools(l)
	return helikon.NewAgent("crash", scriptModel{l: l, calls: []func(string) (string, string){
		func(run string) (string, string) { return "record", fmt.Sprintf(`{"run":%q}`, run) },
		func(run string) (string, string) { return "slow", fmt.Sprintf(`{"run":%q}`, run) },
	}, answer: doneAnswer}, helikon.WithTools(record, slow))
}

// crashTools are the crash-resume test's tools: record logs its run; slow
// logs its start and end, and its first execution of a run waits long
// enough for the test to kill its worker.
func crashTools(l ledger) (record, slow helikon.Tool) {
	record = helikon.MustTool("record", "Records the run.", func(_ *helikon.ToolContext, in runArgs) (string, error) {
		return "r-" + in.Run, l.add("record " + in.Run)
	})
	return record, stallingTool(l, "slow", "Works slowly.", "s-")
}

// stallingTool is a tool that logs "<name>-start <run>" and
// "<name>-done <run>" and answers prefix and the run; its first execution
// of a run waits long enough for the test to kill its worker.
func stallingTool(l ledger, name, description, prefix string) helikon.Tool {
	return helikon.MustTool(name, description, func(tc *helikon.ToolContext, in runArgs) (string, error) {
		first := l.count(name+"-start "+in.Run) == 0
		if err := l.add(name + "-start " + in.Run); err != nil {
			return "", err
		}
		if first {
			select {
			case <-time.After(2 * time.Minute):
			case <-tc.Done():
				return "", tc.Err()
			}
		}
		return prefix + in.Run, l.add(name + "-done " + in.Run)
	})
}

// crashWorkerOptions make a killed worker's work come back fast: a step
// silent for two seconds is retried, and the workflow's next task does not
// wait long on the dead worker's sticky queue. A shorter heartbeat timeout
// (half a second) let a healthy worker process starved by the race
// detector on a loaded machine miss it, so its finished steps were run
// again elsewhere, as the heartbeat contract says they would be.
func crashWorkerOptions() []WorkerOption {
	return []WorkerOption{
		WithHeartbeat(2 * time.Second),
		WithRetryInterval(100 * time.Millisecond),
		WithWorkerOptions(worker.Options{StickyScheduleToStartTimeout: time.Second}),
	}
}

// workerProcessMain is the worker process of the crash-resume test: it
// serves the queue until it is killed.
func workerProcessMain() int {
	// With no sticky cache every workflow task replays the run's history
	// from the server, the path a replacement worker takes anyway, and no
	// task waits on a dead worker's sticky queue.
	worker.SetStickyWorkflowCacheSize(0)
	c, err := client.Dial(client.Options{HostPort: os.Getenv(workerAddrEnv), Logger: quietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	ag, err := crashAgent(ledger(os.Getenv(workerCountEnv)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	lead, err := leadAgent(ledger(os.Getenv(workerCountEnv)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	capped, err := cappedAgent(ledger(os.Getenv(workerCountEnv)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	front, err := frontAgent(ledger(os.Getenv(workerCountEnv)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	queue := os.Getenv(workerQueueEnv)
	opts := append(crashWorkerOptions(), WithAgents(ag, lead, capped, front), WithContextFactory(seedFactory))
	switch {
	case strings.HasPrefix(queue, localModelQueue):
		opts = append(opts, WithLocalModelCalls())
	case strings.HasPrefix(queue, localQueue):
		opts = append(opts, WithLocalActivities(), WithToolAttempts("once", 1))
	}
	w, err := NewWorker(c, queue, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	// Serve until killed, or until the test closes stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	w.Stop()
	return 0
}

// workerProcess is a running crash-resume worker.
type workerProcess struct {
	cmd  *exec.Cmd
	done chan error
}

func startWorkerProcess(t *testing.T, queue string, l ledger) *workerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerProcessEnv+"=1", workerAddrEnv+"="+devAddr, workerQueueEnv+"="+queue, workerCountEnv+"="+string(l))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = stdin // closed when the process is killed or the test ends
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &workerProcess{cmd: cmd, done: make(chan error, 1)}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		_ = cmd.Process.Kill()
		t.Fatalf("worker process did not start: %q %v", line, err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to die.
func (p *workerProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-p.done
	p.done <- err // for the cleanup
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("worker did not die of SIGKILL: %v", err)
	}
}

// waitFor polls the ledger until it holds line. The bound is generous: after
// a kill, a fresh worker, the retried step, a finished child and the parent's
// next task must all run, and under the race detector at a load of 40 on two
// cores that took longer than 30 s (CI, 2026-12-02).
func waitFor(t *testing.T, l ledger, line string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for l.count(line) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("ledger never recorded %q: %v", line, l.lines())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// crashRuns is how many runs the crash-resume test kills a worker in
// with HELIKON_SLOW_TESTS=1 (CI); the README's test command kills one per
// lane, which checks the same resumption, and the 20 are a stress loop.
// crashLanes is how many chains of worker processes share them, each on
// its own task queue, so the test waits out several crashes at once.
const (
	crashRuns  = 20
	crashLanes = 4
)

// localModelQueue prefixes the task queues whose worker processes run
// model turns as local activities ([WithLocalModelCalls]): the queue names
// the mode, so every process started for it, replacements included, runs
// it alike, as a queue's workers must.
const localModelQueue = "local-model-"

func TestCrashResume_KilledWorkersRunResumesWithoutRepeatingFinishedCalls(t *testing.T) {
	t.Parallel()
	crashResume(t, "crash-", slowtest.Size(crashLanes, crashRuns))
}

// TestCrashResume_LocalModelCallsAreNotRepeatedEither kills workers that
// run model turns as local activities mid tool call: the finished model
// turns, recorded with the workflow task that scheduled the tool calls,
// do not run again.
func TestCrashResume_LocalModelCallsAreNotRepeatedEither(t *testing.T) {
	t.Parallel()
	crashResume(t, localModelQueue+"crash-", slowtest.Size(crashLanes, 8))
}

// crashResume kills a worker process mid tool call in runs runs, on
// queues named prefix and a lane number, and checks every run.
func crashResume(t *testing.T, prefix string, runs int) {
	c := newClient(t)
	l := ledger(t.TempDir() + "/ledger")
	ag, err := crashAgent(l)
	if err != nil {
		t.Fatal(err)
	}
	var passed atomic.Int32
	start := time.Now()
	t.Run("lanes", func(t *testing.T) {
		for lane := range crashLanes {
			t.Run(fmt.Sprint("lane ", lane), func(t *testing.T) {
				t.Parallel()
				queue := fmt.Sprintf("%s%d", prefix, lane)
				r, err := NewRunner(c, queue)
				if err != nil {
					t.Fatal(err)
				}
				w := startWorkerProcess(t, queue, l)
				for i := lane; i < runs; i += crashLanes {
					run := fmt.Sprintf("%srun-%02d", prefix, i)
					if crashOnce(t, r, ag, l, run, &w, queue) {
						passed.Add(1)
					}
				}
			})
		}
	})
	t.Logf("crash-resume: %d of %d runs resumed correctly after their worker was SIGKILLed mid-tool-call (%d kills, %v)",
		passed.Load(), runs, runs, time.Since(start).Round(time.Millisecond))
	if passed.Load() != int32(runs) {
		t.Fatalf("%d of %d runs passed", passed.Load(), runs)
	}
}

type outcome struct {
	res *helikon.RunResult
	err error
}

// runKilling starts run and, each time the ledger records the next of
// lines, kills *w and starts a fresh worker process in its place; it
// returns the run's outcome.
func runKilling(t *testing.T, r *Runner, ag *helikon.LLMAgent, l ledger, run string, w **workerProcess, queue string, lines ...string) (*helikon.RunResult, error) {
	t.Helper()
	done := make(chan outcome, 1)
	go func() {
		res, err := r.Run(context.Background(), ag, nil, helikon.UserText(run))
		done <- outcome{res, err}
	}()
	for _, line := range lines {
		waitFor(t, l, line)
		(*w).kill(t)
		*w = startWorkerProcess(t, queue, l)
	}
	o := <-done
	return o.res, o.err
}

// crashOnce starts run, kills *w once the run's slow call has started,
// starts a fresh worker in its place, and checks the run's outcome and the
// ledger.
func crashOnce(t *testing.T, r *Runner, ag *helikon.LLMAgent, l ledger, run string, w **workerProcess, queue string) bool {
	t.Helper()
	var o outcome
	o.res, o.err = runKilling(t, r, ag, l, run, w, queue, "slow-start "+run)
	ok := true
	check := func(cond bool, format string, args ...any) {
		if !cond {
			ok = false
			t.Errorf(run+": "+format, args...)
		}
	}
	check(o.err == nil, "run failed: %v", o.err)
	if o.res != nil {
		check(o.res.FinalOutput == "done "+run+`: "r-`+run+`" "s-`+run+`"`, "output %q", o.res.FinalOutput)
	}
	// Finished steps ran once; the call the kill interrupted ran again.
	for _, step := range []string{"model 1 ", "record ", "model 2 ", "slow-done ", "model 3 "} {
		check(l.count(step+run) == 1, "%sran %d times, want once", step, l.count(step+run))
	}
	check(l.count("slow-start "+run) == 2, "slow started %d times, want 2 (killed, then retried)", l.count("slow-start "+run))
	return ok
}
