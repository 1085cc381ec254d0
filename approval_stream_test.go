package helikon_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/governance"
	"runtime"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// gatedApprover approves only once the test has seen the ApprovalRequested
// event for the call, so a run that reports approvals only after deciding
// deadlocks and fails on the context deadline.
type gatedApprover struct{ seen chan struct{} }

func (g gatedApprover) Decide(ctx context.Context, _ helikon.PermissionRequest, _ string) helikon.ApprovalOutcome {
	select {
	case <-g.seen:
		return helikon.ApprovalOutcome{Allow: true}
	case <-ctx.Done():
		return helikon.ApprovalOutcome{Reason: "cancelled while waiting"}
	}
}

type askAlways struct{}

func (askAlways) Check(context.Context, *helikon.RunContext, helikon.PermissionRequest) governance.PermissionDecision {
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "allow?"}
}

func TestApproval_RequestedIsStreamedWhileTheApproverDecides(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := make(chan struct{})
	rc := helikon.NewRunContext(governance.WithPermissionPolicy(askAlways{}), helikon.WithApprovalHandler(gatedApprover{seen: seen}))
	agent := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Text("3")),
		helikon.WithTools(addTool))
	var types []string
	var runErr error
	for ev := range agent.Run(ctx, rc, helikon.UserText("1+2")) {
		types = append(types, typesOf([]helikon.Event{ev})[0])
		switch e := ev.(type) {
		case helikon.ApprovalRequested:
			if e.CallID != "c1" || e.Tool != "add" {
				t.Errorf("approval event = %+v", e)
			}
			close(seen)
		case helikon.RunFailed:
			runErr = e.Err
		}
	}
	if runErr != nil {
		t.Fatalf("run failed (approval not streamed before the decision?): %v\nevents %v", runErr, types)
	}
	want := []string{"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item", "approval_requested",
		"tool_output_item", "turn_started", "token_delta", "model_responded", "message_output", "run_completed"}
	if !slicesEqual(types, want) {
		t.Fatalf("events = %v\nwant     %v", types, want)
	}
}

func TestApproval_BreakingOutWhileAnApproverWaitsCancelsIt(t *testing.T) {
	base := runtime.NumGoroutine()
	rc := helikon.NewRunContext(governance.WithPermissionPolicy(askAlways{}), helikon.WithApprovalHandler(gatedApprover{seen: make(chan struct{})}))
	agent := mustAgent(t, "a", mock.Scripted(fourCalls("add"), mock.Text("never")), helikon.WithTools(addTool))
	for ev := range agent.Run(context.Background(), rc, helikon.UserText("go")) {
		if _, ok := ev.(helikon.ApprovalRequested); ok {
			break // the approvers never get their answer; the run must still end
		}
	}
	settleGoroutines(t, base)
}

func TestApproval_WithoutHandlerTheRequestComesFirstThenThePause(t *testing.T) {
	rc := helikon.NewRunContext(governance.WithPermissionPolicy(askAlways{}))
	agent := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Text("no")),
		helikon.WithTools(addTool))
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("1+2")))
	if !errors.Is(err, helikon.ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	got := typesOf(res.Events)
	i := indexOf(got, "approval_requested")
	if i < 0 || indexOf(got, "run_paused") != len(got)-1 || indexOf(got, "tool_output_item") >= 0 {
		t.Fatalf("events = %v", got)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
