package runner_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

// kinds lists the kinds of events, with the call id for tool events.
func kinds(evs []helikon.SessionEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.Kind)
		if ev.CallID != "" {
			out[i] += ":" + ev.CallID
		}
		if ev.Agent != "" {
			out[i] += "@" + ev.Agent
		}
	}
	return out
}

func record(t *testing.T, agent helikon.Agent, input []helikon.Item) []helikon.SessionEvent {
	t.Helper()
	rec := runner.NewSessionRecorder(input)
	for ev := range agent.Run(context.Background(), nil, input) {
		rec.Observe(ev)
	}
	return rec.Drain()
}

func TestSessionRecorder_RecordsInputMessagesCallsResultsAndHandoffs(t *testing.T) {
	billing, _ := helikon.NewAgent("billing", mock.Scripted(
		mock.Events(
			helikon.TokenDelta{Text: "Let me add that. "},
			helikon.ToolCallDelta{CallID: "c1", Name: "add", ArgsDelta: `{"a":1,"b":2}`},
			helikon.Finish{Reason: helikon.FinishToolCalls},
		),
		mock.Text("3"),
	), helikon.WithTools(addTool))
	triage, _ := helikon.NewAgent("triage", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_billing"}),
	), helikon.WithHandoffs(helikon.HandoffTo(billing)))

	got := record(t, triage, helikon.UserText("1+2?"))
	want := []string{
		"user_message",
		"tool_called:h1", "tool_returned:h1",
		"handoff_occurred",
		"assistant_message@billing", "tool_called:c1", "tool_returned:c1",
		"assistant_message@billing",
	}
	if !reflect.DeepEqual(kinds(got), want) {
		t.Fatalf("recorded %v\nwant     %v", kinds(got), want)
	}
	if got[3].From != "triage" || got[3].To != "billing" {
		t.Errorf("handoff %+v", got[3])
	}
	if txt := got[4].Content[0].(helikon.TextPart).Text; txt != "Let me add that. " {
		t.Errorf("assistant message content %q (tool uses must not be repeated in it)", txt)
	}
	// The log projects to the transcript the agent saw.
	items := helikon.Project(got)
	if len(items) != 6 || len(items[3].ToolUses()) != 1 || items[3].Agent != "billing" {
		t.Fatalf("projection: %+v", items)
	}
}

func TestSessionRecorder_DrainGivesInterruptedCallASyntheticResult(t *testing.T) {
	agent, _ := helikon.NewAgent("worker", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "add", Args: `{"a":1,"b":2}`}),
	), helikon.WithTools(addTool))
	rec := runner.NewSessionRecorder(helikon.UserText("go"))
	// The consumer stops at the call: the run ends with the call in flight.
	for ev := range agent.Run(context.Background(), nil, helikon.UserText("go")) {
		rec.Observe(ev)
		if _, ok := ev.(helikon.ToolCallItem); ok {
			if rec.Settled() {
				t.Fatal("recorder settled with a call outstanding")
			}
			break
		}
	}
	got := rec.Drain()
	if want := []string{"user_message", "tool_called:s1", "tool_returned:s1"}; !reflect.DeepEqual(kinds(got), want) {
		t.Fatalf("recorded %v, want %v", kinds(got), want)
	}
	res := got[2]
	if !res.IsError || res.Name != "add" || res.Content[0].(helikon.TextPart).Text != runner.InterruptedToolResult {
		t.Fatalf("synthetic result %+v", res)
	}
	items := helikon.Project(got)
	if items[len(items)-1].Role != helikon.RoleTool {
		t.Fatalf("projection does not end with the result: %+v", items)
	}
}

func TestSessionRecorder_KeepsReasoningOfToolOnlyTurnsBeforeTheCalls(t *testing.T) {
	agent, _ := helikon.NewAgent("thinker", mock.Scripted(
		mock.Events(
			helikon.ReasoningDelta{Text: "need to add"},
			helikon.ReasoningDelta{Signature: "sig"},
			helikon.ToolCallDelta{CallID: "c1", Name: "add", ArgsDelta: `{"a":1,"b":2}`},
			helikon.Finish{Reason: helikon.FinishToolCalls},
		),
		mock.Text("3"),
	), helikon.WithTools(addTool))
	got := record(t, agent, helikon.UserText("1+2?"))
	if want := []string{"user_message", "assistant_message@thinker", "tool_called:c1", "tool_returned:c1", "assistant_message@thinker"}; !reflect.DeepEqual(kinds(got), want) {
		t.Fatalf("recorded %v, want %v", kinds(got), want)
	}
	if r := got[1].Content[0].(helikon.ReasoningPart); r.Text != "need to add" || r.Signature != "sig" {
		t.Fatalf("reasoning %+v", r)
	}
	items := helikon.Project(got)
	if len(items[1].Content) != 2 || len(items[1].ToolUses()) != 1 {
		t.Fatalf("the call did not join the reasoning message: %+v", items[1])
	}
}

func TestSessionRecorder_TakeReturnsEachEventOnce(t *testing.T) {
	rec := runner.NewSessionRecorder(helikon.UserText("a"))
	first := rec.Take()
	rec.Observe(helikon.ToolCallItem{Item: helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
		helikon.ToolUsePart{CallID: "c", Name: "t", Args: json.RawMessage(`{}`)}}}})
	if rec.Settled() {
		t.Fatal("settled with an open call")
	}
	second := rec.Take()
	rec.Observe(helikon.ToolOutputItem{Item: helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{
		helikon.ToolResultPart{CallID: "c", Name: "t"}}}})
	third := rec.Drain()
	if len(first) != 1 || len(second) != 1 || len(third) != 1 || !rec.Settled() {
		t.Fatalf("takes %v / %v / %v", kinds(first), kinds(second), kinds(third))
	}
}

func TestSessionRecorder_ZeroValueRecordsLikeNewSessionRecorder(t *testing.T) {
	newAgent := func() helikon.Agent {
		agent, _ := helikon.NewAgent("calc", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
			mock.Text("sum is 42"),
		), helikon.WithTools(addTool))
		return agent
	}
	input := helikon.UserText("what is 40+2?")
	want := record(t, newAgent(), input)

	var rec runner.SessionRecorder
	rec.Record(input)
	var got []helikon.SessionEvent
	for ev := range newAgent().Run(context.Background(), nil, input) {
		rec.Observe(ev)
		if _, ok := ev.(helikon.TurnStarted); ok && rec.Settled() {
			got = append(got, rec.Take()...)
		}
	}
	got = append(got, rec.Drain()...)
	if !reflect.DeepEqual(kinds(got), kinds(want)) {
		t.Fatalf("zero recorder recorded %v\nNewSessionRecorder   %v", kinds(got), kinds(want))
	}
	for i := range got {
		if got[i].Time.IsZero() {
			t.Errorf("event %d (%s) has no time", i, got[i].Kind)
		}
	}
}

func TestSessionRecorder_ZeroValueTakesNothing(t *testing.T) {
	var rec runner.SessionRecorder
	if evs := rec.Take(); len(evs) != 0 {
		t.Fatalf("Take on a zero recorder: %v", kinds(evs))
	}
	if evs := rec.Drain(); len(evs) != 0 || !rec.Settled() {
		t.Fatalf("Drain on a zero recorder: %v", kinds(evs))
	}
}
