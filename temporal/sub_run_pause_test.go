package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// subPauseRun builds a bank whose agent tool teller moves money with
// transfer, which the policy asks a human about. With depth 2 the teller
// asks a clerk, through an agent tool of its own, to do it; with own the
// bank's round also holds a transfer of its own. executions counts the
// transfers that ran.
func subPauseRun(t *testing.T, depth int, own bool, executions *atomic.Int32) (*helikon.LLMAgent, WorkerPosture) {
	transfer := helikon.MustTool("transfer", "Moves money.", func(_ *helikon.ToolContext, in addArgs) (string, error) {
		executions.Add(1)
		return fmt.Sprintf("moved %d", in.A), nil
	})
	worker := mustAgent(t, "teller", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "transfer", Args: `{"a":100,"b":0}`}),
		mock.Text("teller done"),
	), helikon.WithTools(transfer))
	if depth == 2 {
		clerkTool, err := helikon.AgentAsTool(mustAgent(t, "clerk", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "k1", Name: "transfer", Args: `{"a":7,"b":0}`}),
			mock.Text("clerk done"),
		), helikon.WithTools(transfer)))
		if err != nil {
			t.Fatal(err)
		}
		worker = mustAgent(t, "teller", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "s1", Name: "clerk", Args: `{"input":"move 7"}`}),
			mock.Text("teller done"),
		), helikon.WithTools(clerkTool))
	}
	teller, err := helikon.AgentAsTool(worker)
	if err != nil {
		t.Fatal(err)
	}
	calls := []mock.Call{{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, {ID: "c2", Name: "teller", Args: `{"input":"move it"}`}}
	if own {
		calls = append(calls, mock.Call{ID: "c3", Name: "transfer", Args: `{"a":3,"b":0}`})
	}
	bank := mustAgent(t, "bank", mock.Scripted(mock.ToolCalls(calls...), mock.Text("done")), helikon.WithTools(addTool, teller, transfer))
	return bank, WorkerPosture{Policy: askPolicy("transfer")}
}

// decideAll decides every pending approval: approve, or reject with a
// message.
func decideAll(pending []helikon.PendingApproval, reject bool) []helikon.Decision {
	out := make([]helikon.Decision, len(pending))
	for i, p := range pending {
		out[i] = helikon.Approve(p.ID)
		if reject {
			out[i] = helikon.Reject(p.ID, "not today")
		}
	}
	return out
}

// pauseView is what two runs' pauses must agree on: everything but the
// ids each run makes up.
func pauseView(t *testing.T, ev helikon.RunPaused) string {
	t.Helper()
	pending := make([]helikon.PendingApproval, len(ev.State.Pending))
	for i, p := range ev.State.Pending {
		p.ID = ""
		pending[i] = p
	}
	b, err := json.Marshal(struct {
		Agent   string
		Usage   helikon.Usage
		Pending []helikon.PendingApproval
	}{ev.Agent, ev.Usage, pending})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// eventsView encodes a run's settled events, a pause by its pauseView,
// approval requests (a sub-run's too) without their ids.
func eventsView(t *testing.T, evs []helikon.Event) string {
	t.Helper()
	var out []string
	for _, ev := range settled(evs) {
		if e, ok := ev.(helikon.RunPaused); ok {
			out = append(out, "paused "+pauseView(t, e))
			continue
		}
		out = append(out, encodeAll(t, []helikon.Event{withoutApprovalID(ev)})...)
	}
	return strings.Join(out, "\n")
}

// withoutApprovalID blanks the id of an approval request, however deeply
// sub-run events nest it.
func withoutApprovalID(ev helikon.Event) helikon.Event {
	switch e := ev.(type) {
	case helikon.ApprovalRequested:
		e.ID = ""
		return e
	case helikon.SubRunEvent:
		e.Event = withoutApprovalID(e.Event)
		return e
	}
	return ev
}

func TestWorkflow_SubRunPausePausesTheRunAndTakesItsDecisions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		depth     int
		own       bool
		reject    bool
		timeout   time.Duration
		wantRuns  int32
		wantTexts []string
	}{
		{"the sub-run's call approved", 1, false, false, 0, 1, []string{"3", "teller done"}},
		{"the sub-run's call rejected", 1, false, true, 0, 0, []string{"3", "teller done"}},
		{"a sub-run's sub-run's call approved", 2, false, false, 0, 1, []string{"3", "teller done"}},
		{"the sub-run's and the run's own calls in one pause", 1, true, false, 0, 2, []string{"3", "teller done", `"moved 3"`}},
		{"the approval timeout rejects the sub-run's call", 1, false, false, time.Hour, 0, []string{"3", "teller done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var refRuns atomic.Int32
			ref, posture := subPauseRun(t, tc.depth, tc.own, &refRuns)
			rc := helikon.NewRunContext(posture.options(true)...)
			first, err := helikon.Collect(ref.Run(context.Background(), rc, helikon.UserText("go")))
			var paused *helikon.PausedError
			if !errors.As(err, &paused) {
				t.Fatalf("in process: %v, want a pause", err)
			}
			decisions := decideAll(paused.State.Pending, tc.reject)
			if tc.timeout > 0 {
				for i, p := range paused.State.Pending {
					decisions[i] = helikon.Reject(p.ID, "no decision within "+tc.timeout.String())
				}
			}
			rest, err := helikon.Collect(helikon.Resume(context.Background(), ref, rc, paused.State, decisions))
			if err != nil {
				t.Fatal(err)
			}
			want := eventsView(t, append(first.Events, rest.Events...))

			var executions atomic.Int32
			ag, posture := subPauseRun(t, tc.depth, tc.own, &executions)
			env := newTestEnv()
			env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "parent"})
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
			if err != nil {
				t.Fatal(err)
			}
			register(env, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
			var updateErr error
			if tc.timeout == 0 {
				env.RegisterDelayedCallback(func() {
					v, err := env.QueryWorkflow(PauseQuery)
					var p pauseInfo
					if err == nil {
						err = v.Get(&p)
					}
					if err != nil || p.PauseID == "" {
						t.Errorf("the run is not paused: %+v %v", p, err)
						return
					}
					if executions.Load() != 0 {
						t.Error("a call ran before its decision")
					}
					env.UpdateWorkflow(DecideUpdate, "decide", &testsuite.TestUpdateCallback{
						OnReject:   func(err error) { updateErr = err },
						OnAccept:   func() {},
						OnComplete: func(any, error) {},
					}, decideIn{PauseID: p.PauseID, Decisions: decideAll(p.Pending, tc.reject)})
				}, time.Minute)
			}
			env.ExecuteWorkflow(WorkflowName, runInput{Agent: "bank", Input: helikon.UserText("go"), ApprovalTimeout: tc.timeout})
			if err := env.GetWorkflowError(); err != nil || updateErr != nil {
				t.Fatal(err, updateErr)
			}
			var out runOutput
			if err := env.GetWorkflowResult(&out); err != nil {
				t.Fatal(err)
			}
			if out.Output != "done" || executions.Load() != tc.wantRuns {
				t.Fatalf("output %q, transfer ran %d times, want %d", out.Output, executions.Load(), tc.wantRuns)
			}
			if out.Usage != rest.Usage {
				t.Fatalf("usage %+v, in process %+v", out.Usage, rest.Usage)
			}
			evs := queryEvents(t, env).Events
			if got := eventsView(t, evs); got != want {
				t.Fatalf("events differ from the in-process run's\n got:\n%s\nwant:\n%s", got, want)
			}
			var texts []string
			for _, ev := range evs {
				if o, ok := ev.(helikon.ToolOutputItem); ok {
					texts = append(texts, o.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text)
				}
			}
			if strings.Join(texts, "|") != strings.Join(tc.wantTexts, "|") {
				t.Fatalf("tool results %q, want %q", texts, tc.wantTexts)
			}
		})
	}
}

func TestRunner_SubRunPauseSurvivesAWorkerRestart(t *testing.T) {
	c := devClient(t)
	for _, depth := range []int{1, 2} {
		t.Run(fmt.Sprint("depth ", depth), func(t *testing.T) {
			var executions atomic.Int32
			ag, posture := subPauseRun(t, depth, true, &executions)
			queue := fmt.Sprintf("q%d-subpause", queueSeq.Add(1))
			newWorker := func() *Worker {
				w, err := NewWorker(c, queue, WithAgents(ag), WithPosture(posture))
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Start(); err != nil {
					t.Fatal(err)
				}
				return w
			}
			first := newWorker()
			r, err := NewRunner(c, queue)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
			var paused *helikon.PausedError
			if !errors.As(err, &paused) || len(paused.State.Pending) != 2 {
				t.Fatalf("Run: %v, want a pause on the sub-run's and the run's own transfer", err)
			}
			wantPath := []string{"bank", "teller", "clerk"}[:depth+1]
			if p := paused.State.Pending[0]; strings.Join(p.Path, "/") != strings.Join(wantPath, "/") {
				t.Fatalf("the sub-run's approval has path %q, want %q", p.Path, wantPath)
			}
			// The worker that paused goes away; a new one, with nothing of
			// the run in memory, takes the decisions.
			first.Stop()
			second := newWorker()
			defer second.Stop()
			res, err := r.ResumePaused(ctx, ag, nil, paused.State.RunID, decideAll(paused.State.Pending, false))
			if err != nil || res.FinalOutput != "done" {
				t.Fatalf("resumed: %v %v", res, err)
			}
			if executions.Load() != 2 {
				t.Fatalf("transfer ran %d times, want once per approved call", executions.Load())
			}
			// The sub-run ran in one child workflow, which completed.
			child := paused.State.RunID + "/c2"
			d, err := c.DescribeWorkflowExecution(ctx, child, "")
			if err != nil {
				t.Fatal(err)
			}
			if st := d.WorkflowExecutionInfo.Status.String(); st != "Completed" {
				t.Fatalf("child %s is %s, want Completed", child, st)
			}
		})
	}
}

func TestWorkflow_CancelledRunWithAPausedSubRunEnds(t *testing.T) {
	var executions atomic.Int32
	ag, posture := subPauseRun(t, 1, false, &executions)
	env := newTestEnv()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "parent"})
	reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
	if err != nil {
		t.Fatal(err)
	}
	register(env, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(PauseQuery)
		var p pauseInfo
		if err == nil {
			err = v.Get(&p)
		}
		if err != nil || p.PauseID == "" {
			t.Errorf("the run is not paused: %+v %v", p, err)
		}
		env.CancelWorkflow()
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowName, runInput{Agent: "bank", Input: helikon.UserText("go")})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the cancelled run did not end")
	}
	if executions.Load() != 0 {
		t.Fatalf("transfer ran %d times after the run was cancelled", executions.Load())
	}
}

// An agent tool over a sequential agent runs inside its tool call's
// activity; a call in it that asks a human cannot pause the run, and the
// model sees why.
func TestWorkflow_OrchestrationAgentToolCannotPauseTheRun(t *testing.T) {
	var executions atomic.Int32
	transfer := helikon.MustTool("transfer", "Moves money.", func(_ *helikon.ToolContext, in addArgs) (string, error) {
		executions.Add(1)
		return "moved", nil
	})
	teller := mustAgent(t, "teller", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "transfer", Args: `{"a":100,"b":0}`}),
		mock.Text("teller done"),
	), helikon.WithTools(transfer))
	desk, err := workflow.NewSequential("desk", workflow.Step(teller))
	if err != nil {
		t.Fatal(err)
	}
	tool, err := helikon.AgentAsTool(desk)
	if err != nil {
		t.Fatal(err)
	}
	bank := mustAgent(t, "bank", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "desk", Args: `{"input":"move it"}`}), mock.Text("done")), helikon.WithTools(tool))
	out, evs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{bank}, posture: WorkerPosture{Policy: askPolicy("transfer")}}, runInput{Agent: "bank", Input: helikon.UserText("go")})
	if err != nil || out.Output != "done" {
		t.Fatalf("run: %+v %v", out, err)
	}
	var result string
	for _, ev := range evs {
		if o, ok := ev.(helikon.ToolOutputItem); ok {
			result = o.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text
		}
		if _, ok := ev.(helikon.RunPaused); ok {
			t.Fatal("the run paused")
		}
	}
	if !strings.Contains(result, "paused a nested run for approval, which a step-driven run cannot resume") || executions.Load() != 0 {
		t.Fatalf("the agent tool's result %q, transfer ran %d times", result, executions.Load())
	}
}
