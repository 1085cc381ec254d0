package workflow_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/workflow"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// approveTool escalates: the critic calls it once the draft passes review.
var approveTool = helikon.MustTool("approve", "Approve the draft and stop iterating.",
	func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		tc.Actions().Escalate()
		return "approved", nil
	})

// critic rejects rejections times, then approves.
func critic(t testing.TB, rejections int) (*helikon.LLMAgent, *mock.Model) {
	var scripts []mock.Script
	for i := range rejections {
		scripts = append(scripts, mock.Text("needs work "+string(rune('1'+i))))
	}
	scripts = append(scripts, mock.ToolCalls(mock.Call{ID: "ok", Name: "approve", Args: `{}`}), mock.Text("looks good"))
	m := mock.Scripted(scripts...)
	return mustAgent(t, "critic", m, helikon.WithTools(approveTool)), m
}

func drafter(t testing.TB, n int) (*helikon.LLMAgent, *mock.Model) {
	var scripts []mock.Script
	for i := range n {
		scripts = append(scripts, mock.Text("draft "+string(rune('1'+i))))
	}
	m := mock.Scripted(scripts...)
	return mustAgent(t, "drafter", m, readsState("critic")), m
}

func TestLoop_EscalateStopsAfterTheEscalatingSubAgent(t *testing.T) {
	d, dm := drafter(t, 3)
	c, _ := critic(t, 1)
	polishModel := mock.Scripted(mock.Text("polished 1"), mock.Text("polished 2"))
	polish := mustAgent(t, "polish", polishModel)
	loop, err := workflow.NewLoop("refine", 5, workflow.Step(d), workflow.Step(c), workflow.Step(polish))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(loop.Run(context.Background(), rc, helikon.UserText("write")))
	if err != nil {
		t.Fatal(err)
	}
	// Pass 1: draft, reject, polish. Pass 2: draft, approve; polish does not run.
	if len(dm.Requests()) != 2 || len(polishModel.Requests()) != 1 {
		t.Fatalf("drafter ran %d times, polish %d; want 2 and 1", len(dm.Requests()), len(polishModel.Requests()))
	}
	// The second draft read the critic's first verdict from state.
	if got := dm.Requests()[1].Messages[0].Text(); got != "Notes: needs work 1" {
		t.Errorf("second draft's instructions = %q", got)
	}
	if rc.State().String("critic") != "looks good" || rc.State().String("drafter") != "draft 2" {
		t.Errorf("state = %v", rc.State().Snapshot())
	}
	var updated []string
	for _, ev := range res.Events {
		if u, ok := ev.(helikon.AgentUpdated); ok {
			updated = append(updated, u.Agent)
		}
	}
	if !slicesEqual(updated, []string{"drafter", "critic", "polish", "drafter", "critic"}) {
		t.Errorf("sub-agents ran in order %v", updated)
	}
	// Five sub-runs, six turns (the critic's approval takes two).
	if res.Usage != (helikon.Usage{InputTokens: 60, OutputTokens: 30}) {
		t.Errorf("usage = %+v", res.Usage)
	}
	if c := res.Events[len(res.Events)-1].(helikon.RunCompleted); c.Agent != "critic" || c.Agent != res.LastAgent {
		t.Errorf("completed by %q, last agent %q; want the escalating critic", c.Agent, res.LastAgent)
	}
	if rc.Actions().Escalated() {
		t.Error("the loop passed the escalation it consumed to its own caller")
	}
}

func TestLoop_WithoutEscalateFailsWithMaxIterationsExceeded(t *testing.T) {
	d, dm := drafter(t, 3)
	loop, _ := workflow.NewLoop("refine", 3, workflow.Step(d))
	res, err := helikon.Collect(loop.Run(context.Background(), nil, helikon.UserText("write")))
	var ae *helikon.AgentError
	if !errors.Is(err, helikon.ErrMaxIterationsExceeded) || !errors.As(err, &ae) || ae.Agent != "refine" {
		t.Fatalf("err = %v", err)
	}
	if len(dm.Requests()) != 3 {
		t.Errorf("%d iterations ran, want 3", len(dm.Requests()))
	}
	if countEvents[helikon.RunFailed](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 0 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
}

func TestLoop_EscalationStopsOnlyTheInnermostLoop(t *testing.T) {
	// The inner loop's critic approves at once in each inner run; the outer
	// loop must not see that escalation and runs out of iterations.
	c := mustAgent(t, "critic", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "1", Name: "approve", Args: `{}`}), mock.Text("ok"),
		mock.ToolCalls(mock.Call{ID: "2", Name: "approve", Args: `{}`}), mock.Text("ok")),
		helikon.WithTools(approveTool))
	inner, _ := workflow.NewLoop("inner", 3, workflow.Step(c))
	outer, _ := workflow.NewLoop("outer", 2, workflow.Step(inner))
	_, err := helikon.Collect(outer.Run(context.Background(), nil, helikon.UserText("go")))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindMaxIterationsExceeded || ae.Agent != "outer" {
		t.Fatalf("err = %v, want the outer loop to run out", err)
	}
}

func TestLoop_EscalationReachesTheLoopThroughWorkflowsAndHandoffs(t *testing.T) {
	tests := map[string]func(critic helikon.Agent) helikon.Agent{
		"sequential": func(c helikon.Agent) helikon.Agent {
			s, _ := workflow.NewSequential("pass", workflow.Step(answerer(t, "drafter", "draft")), workflow.Step(c))
			return s
		},
		"handoff": func(c helikon.Agent) helikon.Agent {
			return mustAgent(t, "router", mock.Scripted(transfer("critic")), helikon.WithHandoffs(helikon.HandoffTo(c)))
		},
		"parallel": func(c helikon.Agent) helikon.Agent {
			p, _ := workflow.NewParallel("both", workflow.Step(answerer(t, "drafter", "draft")), workflow.Step(c))
			return p
		},
	}
	for name, wrap := range tests {
		t.Run(name, func(t *testing.T) {
			c, _ := critic(t, 0)
			loop, _ := workflow.NewLoop("refine", 3, workflow.Step(wrap(c)))
			if _, err := helikon.Collect(loop.Run(context.Background(), nil, helikon.UserText("go"))); err != nil {
				t.Fatalf("the escalation did not stop the loop: %v", err)
			}
		})
	}
}

func TestLoop_FailingSubAgentFailsTheLoop(t *testing.T) {
	loop, _ := workflow.NewLoop("l", 5, workflow.Step(mustAgent(t, "broken", mock.Scripted(mock.Fail(errors.New("down"))))))
	_, err := helikon.Collect(loop.Run(context.Background(), nil, helikon.UserText("go")))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Agent != "broken" || ae.Kind != helikon.KindModel {
		t.Fatalf("err = %v", err)
	}
}
