package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
)

// localQueue prefixes the task queues whose worker processes run every
// step as a local activity ([WithLocalActivities]) and cap the once
// tool at one attempt.
const localQueue = "local-activities-"

// cappedAgent calls once, then answers with its result.
func cappedAgent(l ledger) (*helikon.LLMAgent, error) {
	return helikon.NewAgent("capped", scriptModel{l: l, name: "capped", calls: []func(string) (string, string){
		func(run string) (string, string) { return "once", fmt.Sprintf(`{"run":%q}`, run) },
	}, answer: doneAnswer}, helikon.WithTools(stallingTool(l, "once", "Must not run twice.", "o-")))
}

// frontAgent hands the run to back; its OnHandoff hook logs the run (the
// seed) and, the first time, waits long enough for the test to kill its
// worker. back answers "back" and the run.
func frontAgent(l ledger) (*helikon.LLMAgent, error) {
	back, err := helikon.NewAgent("back", scriptModel{l: l, name: "back", answer: func(run string, _ []string) string { return "back " + run }})
	if err != nil {
		return nil, err
	}
	hook := helikon.HookFunc(func(ctx context.Context, rc *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind != helikon.OnHandoff {
			return helikon.HookDecision{}
		}
		run, _ := helikon.User[string](rc)
		first := l.count("hook "+run) == 0
		if err := l.add("hook " + run); err != nil {
			return helikon.HookDecision{Action: helikon.HookDeny, Reason: err.Error()}
		}
		if first {
			select {
			case <-time.After(30 * time.Second):
			case <-ctx.Done():
			}
		}
		return helikon.HookDecision{}
	})
	return helikon.NewAgent("front", scriptModel{l: l, name: "front", calls: []func(string) (string, string){
		func(string) (string, string) { return "transfer_to_back", `{}` },
	}, answer: doneAnswer}, helikon.WithHandoffs(helikon.HandoffTo(back)), helikon.WithHooks(hook))
}

// seedFactory makes a run's seed, its name, the run's user value.
func seedFactory(_ context.Context, seed json.RawMessage) (any, error) {
	var run string
	if len(seed) > 0 {
		if err := json.Unmarshal(seed, &run); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// TestCrashResume_LocalActivitiesKeepAToolsOneAttemptCap kills a worker
// that runs steps as local activities in the middle of a call of a tool
// capped at one attempt: the call is not run again (a local activity's
// attempt count dies with its worker, so it ran twice before the capped
// tool became an activity), the model sees the failure, and the run
// completes.
func TestCrashResume_LocalActivitiesKeepAToolsOneAttemptCap(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	l := ledger(t.TempDir() + "/ledger")
	ag, err := cappedAgent(l)
	if err != nil {
		t.Fatal(err)
	}
	queue := localQueue + "cap"
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	w := startWorkerProcess(t, queue, l)
	for i := range 2 {
		run := fmt.Sprintf("cap-%02d", i)
		res, err := runKilling(t, r, ag, l, run, &w, queue, "once-start "+run)
		if err != nil {
			t.Fatalf("%s failed: %v", run, err)
		}
		if !strings.HasPrefix(res.FinalOutput, "done "+run+": tool call failed") {
			t.Errorf("%s: output %q, want the model told the call failed", run, res.FinalOutput)
		}
		if n := l.count("once-start " + run); n != 1 {
			t.Errorf("%s: the one-attempt tool started %d times, want once; ledger:\n%s", run, n, strings.Join(l.lines(), "\n"))
		}
		for _, step := range []string{"capped model 1 ", "capped model 2 "} {
			if n := l.count(step + run); n != 1 {
				t.Errorf("%s: %q ran %d times, want once", run, step+run, n)
			}
		}
	}
}

// TestCrashResume_LocalModelCallsDoNotRepeatAHandoffTurn kills a worker
// that runs model turns as local activities during the handoff hook that
// follows a turn asking for the handoff: the turn is recorded before the
// hook runs, so it does not run again; the hook, the interrupted step,
// does.
func TestCrashResume_LocalModelCallsDoNotRepeatAHandoffTurn(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	l := ledger(t.TempDir() + "/ledger")
	ag, err := frontAgent(l)
	if err != nil {
		t.Fatal(err)
	}
	queue := localModelQueue + "handoff"
	w := startWorkerProcess(t, queue, l)
	// One run: the dead worker's workflow task times out in 10 s first.
	for i := range 1 {
		run := fmt.Sprintf("front-%02d", i)
		r, err := NewRunner(c, queue, WithSeed(func(*helikon.RunContext) (any, error) { return run, nil }))
		if err != nil {
			t.Fatal(err)
		}
		res, err := runKilling(t, r, ag, l, run, &w, queue, "hook "+run)
		if err != nil {
			t.Fatalf("%s failed: %v", run, err)
		}
		if res.FinalOutput != "back "+run || res.LastAgent != "back" {
			t.Errorf("%s: output %q from %q, want %q from back", run, res.FinalOutput, res.LastAgent, "back "+run)
		}
		if n := l.count("front model 1 " + run); n != 1 {
			t.Errorf("%s: the handoff turn ran %d times, want once; ledger:\n%s", run, n, strings.Join(l.lines(), "\n"))
		}
		if n := l.count("hook " + run); n != 2 {
			t.Errorf("%s: the handoff hook ran %d times, want 2 (killed, then retried)", run, n)
		}
		// back's first turn sees the transfer's result: its ledger line
		// counts that result.
		if n := l.count("back model 2 " + run); n != 1 {
			t.Errorf("%s: the target's turn ran %d times, want once", run, n)
		}
	}
}
