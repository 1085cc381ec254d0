package mock_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/governance"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func text(evs []helikon.ModelEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.(helikon.TokenDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// TestConversational_PicksTheScriptByTheAgentsTurnsSinceTheLastUserMessage
// pins the stateless choice: a question starts at the first script, each
// of the agent's own answers since moves one on, another agent's answers
// (a handoff's source) and earlier questions do not count, and the same
// request always gets the same script, however often it is asked.
func TestConversational_PicksTheScriptByTheAgentsTurnsSinceTheLastUserMessage(t *testing.T) {
	f, err := mock.ParseScriptFile([]byte(`{"default": [[{"type":"token_delta","text":"first"}], [{"type":"token_delta","text":"second"}]]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Conversational("", "budgeting")
	user := helikon.UserText("q")[0]
	own := helikon.Item{Role: helikon.RoleAssistant, Agent: "budgeting"}
	other := helikon.Item{Role: helikon.RoleAssistant, Agent: "triage"}
	result := helikon.Item{Role: helikon.RoleTool}
	tests := []struct {
		name string
		msgs []helikon.Item
		want string
	}{
		{"a new question", []helikon.Item{user}, "first"},
		{"after a handoff from another agent", []helikon.Item{user, other, result}, "first"},
		{"after the agent's own tool call", []helikon.Item{user, other, result, own, result}, "second"},
		{"a later question of the same conversation", []helikon.Item{user, own, result, own, user}, "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 {
				var evs []helikon.ModelEvent
				for ev, err := range m.Invoke(context.Background(), &helikon.ModelRequest{Messages: tt.msgs}) {
					if err != nil {
						t.Fatal(err)
					}
					evs = append(evs, ev)
				}
				if got := text(evs); got != tt.want {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
	var err2 error
	for _, e := range m.Invoke(context.Background(), &helikon.ModelRequest{Messages: []helikon.Item{user, own, own}}) {
		err2 = e
	}
	if !errors.Is(err2, helikon.ErrModelOther) || !strings.Contains(err2.Error(), "budgeting's call 3 of the question has no script") {
		t.Fatalf("a third call: %v", err2)
	}
}

// TestConversational_ResumedRunGoesOnAfterThePausedCall runs an agent on a
// Conversational model until it pauses for approval, then resumes it with
// an agent built anew on a new Conversational model, as helikon serve
// does: the resumed run answers with the script after the call.
func TestConversational_ResumedRunGoesOnAfterThePausedCall(t *testing.T) {
	f, err := mock.ParseScriptFile([]byte(`{"default": [
	  [{"type":"tool_call_delta","call_id":"c1","name":"pay","args_delta":"{}"},{"type":"finish","reason":"tool_calls"}],
	  [{"type":"token_delta","text":"paid"},{"type":"finish","reason":"stop"}]]}`))
	if err != nil {
		t.Fatal(err)
	}
	pay := helikon.MustTool("pay", "Pay.", func(*helikon.ToolContext, struct{}) (string, error) { return "ok", nil })
	build := func() helikon.Agent {
		a, err := helikon.NewAgent("payer", f.Conversational("", "payer"), helikon.WithTools(pay))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rc := helikon.NewRunContext(governance.WithPermissionPolicy(askAll{}))
	var state *helikon.RunState
	for ev := range build().Run(context.Background(), rc, helikon.UserText("pay bob")) {
		if p, ok := ev.(helikon.RunPaused); ok {
			state = p.State
		}
	}
	if state == nil || len(state.Pending) != 1 {
		t.Fatalf("the run did not pause on the call: %+v", state)
	}
	var answer string
	for ev := range helikon.Resume(context.Background(), build(), rc, state, []helikon.Decision{helikon.Approve(state.Pending[0].ID)}) {
		switch e := ev.(type) {
		case helikon.MessageOutput:
			answer = e.Item.Text()
		case helikon.RunFailed:
			t.Fatalf("resumed run failed: %v", e.Err)
		}
	}
	if answer != "paid" {
		t.Fatalf("resumed answer %q, want paid", answer)
	}
}

type askAll struct{}

func (askAll) Check(context.Context, *helikon.RunContext, helikon.PermissionRequest) governance.PermissionDecision {
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "pay?"}
}
