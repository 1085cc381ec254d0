package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"strings"
	"sync/atomic"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// The worker's guardrails, hooks and tools run inside the durable run's
// activities; the scenarios (durable_driver_test.go) compare their events
// with the in-process run's. These tests pin what the comparison cannot
// show: what ran, how often, and on which side.

// TestWorkflow_TrippedInputGuardrailFailsTheRunAsInProcess compares a run
// whose input guardrail trips with the in-process run of the same agent
// with the default, concurrent input check: the same tripwire and the
// same failure. A durable run's input guardrails finish before its first
// turn, so the model is never called and the failure spends nothing.
func TestWorkflow_TrippedInputGuardrailFailsTheRunAsInProcess(t *testing.T) {
	build := func() (*helikon.LLMAgent, *mock.Model) {
		m := mock.Scripted(mock.Text("never sent"))
		return mustAgent(t, "a", m, helikon.WithInputGuardrails(tripOn(helikon.GuardrailInputPolicy, "wire"))), m
	}
	ref, _ := build()
	want, wantErr := helikon.Collect(ref.Run(context.Background(), helikon.NewRunContext(), helikon.UserText("wire money")))

	ag, m := build()
	out, evs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{ag}}, runInput{Agent: "a", Input: helikon.UserText("wire money")})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(wantErr, helikon.ErrGuardrailTripped) {
		t.Fatalf("in process: %v, want a tripped guardrail", wantErr)
	}
	if out.Err == nil || out.Err.Kind != helikon.KindGuardrail || out.Err.Error() != wantErr.Error() {
		t.Fatalf("durable error %v, in process %v", out.Err, wantErr)
	}
	trip := func(evs []helikon.Event) string {
		for _, ev := range evs {
			if g, ok := ev.(helikon.GuardrailTriggered); ok {
				return encodeAll(t, []helikon.Event{g})[0]
			}
		}
		return "none"
	}
	if g, w := trip(evs), trip(want.Events); g != w {
		t.Fatalf("durable tripwire %s, in process %s", g, w)
	}
	if n := len(m.Requests()); n != 0 || out.Usage != (helikon.Usage{}) {
		t.Fatalf("the model was called %d times (usage %+v) after the input guardrail tripped", n, out.Usage)
	}
}

// TestWorkflow_ToolErrorIsDataAndItsActivityRunsOnce: a tool whose
// function fails returns that failure to the model as the call's result;
// the tool activity succeeds, so Temporal, which would retry a failed
// activity without bound, runs it once.
func TestWorkflow_ToolErrorIsDataAndItsActivityRunsOnce(t *testing.T) {
	for _, mode := range []stepMode{modeActivities, modeLocalModel, modeLocal} {
		t.Run(string(mode), func(t *testing.T) {
			var runs atomic.Int32
			ledger := helikon.MustTool("ledger", "Reads the ledger.", func(_ *helikon.ToolContext, _ struct{}) (string, error) {
				runs.Add(1)
				return "", errors.New("ledger offline")
			})
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "ledger", Args: `{}`}), mock.Text("the ledger is offline"))
			ag := mustAgent(t, "books", m, helikon.WithTools(ledger))
			cfg := workerConfig{agents: []*helikon.LLMAgent{ag}}
			cfg.timeouts.local, cfg.timeouts.localModel = mode == modeLocal, mode == modeLocalModel
			var attempts []int32
			var failed []error
			listen := func(env *testsuite.TestWorkflowEnvironment) {
				started := func(info *activity.Info) {
					if info.ActivityType.Name == activityTool {
						attempts = append(attempts, info.Attempt)
					}
				}
				env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) { started(info) })
				env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) { started(info) })
				env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, err error) {
					if info.ActivityType.Name == activityTool && err != nil {
						failed = append(failed, err)
					}
				})
			}
			out, _, err := runInEnv(t, cfg, runInput{Agent: "books", Input: helikon.UserText("go")}, listen)
			if err != nil || out.Err != nil || out.Output != "the ledger is offline" {
				t.Fatalf("run: %+v, %v", out, err)
			}
			if len(attempts) != 1 || attempts[0] != 1 || runs.Load() != 1 || len(failed) != 0 {
				t.Fatalf("tool activity attempts %v (failures %v), function ran %d times; want one attempt", attempts, failed, runs.Load())
			}
			reqs := m.Requests()
			last := reqs[len(reqs)-1].Messages
			res, ok := last[len(last)-1].Content[0].(helikon.ToolResultPart)
			if !ok || !res.IsError || !strings.Contains(fmt.Sprint(res.Content), "ledger offline") {
				t.Fatalf("the model's second turn saw %+v, want the tool's error as the call's result", last[len(last)-1])
			}
		})
	}
}

// countingLeak is leakTool counting its executions.
func countingLeak(n *atomic.Int32) helikon.Tool {
	return helikon.MustTool("leak", "Returns a secret.", func(_ *helikon.ToolContext, _ struct{}) (string, error) {
		n.Add(1)
		return "the key is API_KEY=sk-live-0123456789abcdefghijklmnop", nil
	})
}

// TestRunner_WorkerHooksRunAndTheirDenialIsAuthoritative runs on the dev
// server a worker whose posture allows everything (bypass mode, an allow
// rule for leak) but whose PreToolUse hook denies leak, and a caller whose
// RunContext has hooks of its own that would allow and rewrite every call.
// The worker's hooks run (the PostToolUse hook rewrites add's output), its
// denial holds (leak never runs, the model reads the reason), and the
// caller's hooks never run: the RunContext does not cross to the worker.
func TestRunner_WorkerHooksRunAndTheirDenialIsAuthoritative(t *testing.T) {
	c := devClient(t)
	var leaks atomic.Int32
	m := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, mock.Call{ID: "c2", Name: "leak", Args: `{}`}),
		mock.Text("done"),
	)
	ag := mustAgent(t, "ops", m, helikon.WithTools(addTool, countingLeak(&leaks)))
	queue := startWorker(t, c, WithAgents(ag), WithPosture(WorkerPosture{
		Mode: governance.PermissionBypass, Allow: []governance.AllowRule{governance.AllowTool("leak")}, Hooks: workerHooks(),
	}))
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	var callerHooks atomic.Int32
	rc := helikon.NewRunContext(helikon.WithHookRegistry(helikon.NewHookRegistry(helikon.HookFunc(
		func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
			callerHooks.Add(1)
			return helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{}`)}
		}))))
	res, err := r.Run(context.Background(), ag, rc, helikon.UserText("go"))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("run: %v", err)
	}
	if n := leaks.Load(); n != 0 {
		t.Fatalf("leak ran %d times despite the worker hook's denial", n)
	}
	if n := callerHooks.Load(); n != 0 {
		t.Fatalf("the caller's hooks ran %d times on the worker", n)
	}
	results := map[string]string{}
	for _, ev := range res.Events {
		if o, ok := ev.(helikon.ToolOutputItem); ok {
			p := o.Item.Content[0].(helikon.ToolResultPart)
			results[p.CallID] = fmt.Sprint(p.IsError, " ", p.Content[0].(helikon.TextPart).Text)
		}
	}
	if !strings.Contains(results["c2"], "true") || !strings.Contains(results["c2"], "leak is off limits on this worker") {
		t.Fatalf("leak's result %q, want the worker hook's denial", results["c2"])
	}
	if results["c1"] != `false "three, said the hook"` {
		t.Fatalf("add's result %q, want the worker's PostToolUse hook's replacement", results["c1"])
	}
}
