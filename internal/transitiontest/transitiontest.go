// Package transitiontest holds the core's transition table: the rows that
// pin what [helikon.Transition] does from each loop state on each input.
// The core's tests check Transition against it, and the durable runner's
// tests check that its driver, which feeds Transition one input at a time,
// reports the same next state, action and events for every row.
package transitiontest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
)

// Case is one row of the table: from State (nil: a fresh run), on In, for
// a run with tools and an output type as Tools and Output say (see
// [Ctx]), Transition moves to a state of type WantState, asks for
// WantAction and emits events of the types WantEvents; a Failed next
// state has the kind WantKind.
type Case struct {
	Name          string
	State         helikon.LoopState
	In            helikon.TransitionInput
	Tools, Output bool
	WantState     string
	WantAction    helikon.ActionKind
	WantEvents    []string
	WantKind      helikon.ErrorKind
}

type answer struct {
	Category string `json:"category"`
	Score    int    `json:"score"`
}

// Ctx returns the transition context the rows run in: agent "a" with a
// system prompt and a user turn, three turns at most, a transfer to "b",
// and, as asked, an "add" tool and a structured output type.
func Ctx(t testing.TB, tools, output bool) *helikon.TransitionCtx {
	t.Helper()
	tc := &helikon.TransitionCtx{
		Agent:        "a",
		System:       []helikon.Item{helikon.SystemItem("be brief")},
		Conversation: helikon.UserText("hi"),
		MaxTurns:     3,
		Handoffs:     map[string]string{"transfer_to_b": "b"},
	}
	if tools {
		tc.Tools = []helikon.ToolDef{{Name: "add", Parameters: &jsonschema.Schema{Type: "object"}}}
	}
	if output {
		ot, err := helikon.OutputTypeOf[answer]()
		if err != nil {
			t.Fatal(err)
		}
		tc.Output = ot
	}
	return tc
}

// Text is a model response that answers s.
func Text(s string) helikon.ModelResponse {
	return helikon.ModelResponse{Message: helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: s}}}, Usage: helikon.Usage{InputTokens: 1, OutputTokens: 1}}
}

// Calls is a model response that calls the named tools, with ids "a", "b", ….
func Calls(names ...string) helikon.ModelResponse {
	r := helikon.ModelResponse{Message: helikon.Item{Role: helikon.RoleAssistant}, Usage: helikon.Usage{InputTokens: 1, OutputTokens: 1}}
	for i, n := range names {
		c := helikon.ToolCall{CallID: string(rune('a' + i)), Name: n, Args: json.RawMessage(`{}`)}
		r.Calls = append(r.Calls, c)
		r.Message.Content = append(r.Message.Content, helikon.ToolUsePart{CallID: c.CallID, Name: c.Name, Args: c.Args})
	}
	return r
}

// Cases returns the table.
func Cases() []Case {
	p := func(turn int) helikon.Progress {
		return helikon.Progress{Turn: turn, Usage: helikon.Usage{InputTokens: 1, OutputTokens: 1}}
	}
	invalid := helikon.ToolResults{Results: []helikon.ToolResult{{CallID: "a", Name: "add", IsError: true, InvalidArgs: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "bad"}}}}}
	type (
		calling    = helikon.CallingModel
		executing  = helikon.ExecutingTools
		finalizing = helikon.Finalizing
		repairing  = helikon.RepairingOutput
		handoff    = helikon.ApplyingHandoff
		approval   = helikon.NeedsApproval
	)
	const (
		callModel = helikon.ActCallModel
		execute   = helikon.ActExecuteTools
		hand      = helikon.ActHandoff
		terminate = helikon.ActTerminate
		pause     = helikon.ActPause
	)
	return []Case{
		{"start without tools or output calls the model", nil, helikon.Start{}, false, false, "calling_model", callModel, []string{"run_started", "turn_started"}, ""},
		{"start with output but no tools goes straight to finalizing", nil, helikon.Start{}, false, true, "finalizing", callModel, []string{"run_started", "turn_started"}, ""},
		{"start with tools and output calls the model first", nil, helikon.Start{}, true, true, "calling_model", callModel, []string{"run_started", "turn_started"}, ""},
		{"non-start input on a fresh run fails", nil, Text("x"), false, false, "failed", terminate, nil, helikon.KindOther},
		{"text answer completes", calling{Progress: p(1)}, Text("hello"), false, false, "done", terminate, []string{"model_responded", "message_output"}, ""},
		{"tool calls execute tools", calling{Progress: p(1)}, Calls("add", "add"), true, false, "executing_tools", execute, []string{"model_responded", "tool_call_item", "tool_call_item"}, ""},
		{"transfer call applies the handoff", calling{Progress: p(1)}, Calls("add", "transfer_to_b"), true, false, "applying_handoff", hand, []string{"model_responded", "tool_call_item", "tool_call_item", "tool_output_item", "tool_output_item"}, ""},
		{"valid structured text completes without finalizing", calling{Progress: p(1)}, Text(`{"category":"x","score":1}`), true, true, "done", terminate, []string{"model_responded", "message_output"}, ""},
		{"plain text with an output type moves to finalizing", calling{Progress: p(1)}, Text("I think it is x"), true, true, "finalizing", callModel, []string{"model_responded", "message_output", "turn_started"}, ""},
		{"finalizing miss starts the repair turn", finalizing{Progress: p(1)}, Text(`{"category":1}`), false, true, "repairing_output", callModel, []string{"model_responded", "message_output", "repair_started", "turn_started"}, ""},
		{"finalizing hit completes", finalizing{Progress: p(1)}, Text(`{"category":"x","score":2}`), false, true, "done", terminate, []string{"model_responded", "message_output"}, ""},
		{"repair miss fails with invalid structured output", repairing{Progress: p(2), Attempt: 1}, Text("nope"), false, true, "failed", terminate, []string{"model_responded", "message_output", "structured_output_failed"}, helikon.KindInvalidStructuredOutput},
		{"repair hit completes", repairing{Progress: p(2), Attempt: 1}, Text(`{"category":"x","score":3}`), false, true, "done", terminate, []string{"model_responded", "message_output"}, ""},
		{"tool results start the next turn", executing{Progress: p(1), Calls: Calls("add").Calls}, helikon.ToolResults{Results: []helikon.ToolResult{{CallID: "a", Name: "add", Content: []helikon.ContentPart{helikon.TextPart{Text: "{}"}}}}}, true, false, "calling_model", callModel, []string{"tool_output_item", "turn_started"}, ""},
		{"tool results past the turn budget fail", executing{Progress: p(3), Calls: Calls("add").Calls}, helikon.ToolResults{Results: []helikon.ToolResult{{CallID: "a", Name: "add"}}}, true, false, "failed", terminate, []string{"tool_output_item"}, helikon.KindMaxTurnsExceeded},
		{"first invalid args are fed back", executing{Progress: p(1), Calls: Calls("add").Calls}, invalid, true, false, "calling_model", callModel, []string{"tool_output_item", "turn_started"}, ""},
		{"second invalid args for the same tool fail", executing{Progress: helikon.Progress{Turn: 2, Strikes: []string{"add"}}, Calls: Calls("add").Calls}, invalid, true, false, "failed", terminate, []string{"tool_output_item"}, helikon.KindTool},
		{"handoff return completes with summed usage", handoff{Progress: p(1), Target: "b"}, helikon.HandoffReturned{Output: "from b", Usage: helikon.Usage{InputTokens: 5}}, true, false, "done", terminate, nil, ""},
		{"handoff failure fails", handoff{Progress: p(1), Target: "b"}, helikon.HandoffReturned{Err: helikon.ErrMaxTurnsExceeded}, true, false, "failed", terminate, nil, helikon.KindMaxTurnsExceeded},
		{"abort fails a calling state", calling{Progress: p(1)}, helikon.Abort{Err: context.Canceled}, false, false, "failed", terminate, nil, helikon.KindCancelled},
		{"abort fails executing tools", executing{Progress: p(1)}, helikon.Abort{Err: &helikon.ModelError{Kind: helikon.ModelTransport}}, true, false, "failed", terminate, nil, helikon.KindModel},
		{"abort leaves done alone", helikon.Done{Output: "x"}, helikon.Abort{Err: context.Canceled}, false, false, "done", terminate, nil, ""},
		{"done is terminal", helikon.Done{Output: "x"}, Text("y"), false, false, "done", terminate, nil, ""},
		{"failed is terminal", helikon.Failed{Err: helikon.ErrMaxTurnsExceeded}, Text("y"), false, false, "failed", terminate, nil, helikon.KindMaxTurnsExceeded},
		{"wrong input for a calling state fails", calling{Progress: p(1)}, helikon.ToolResults{}, false, false, "failed", terminate, nil, helikon.KindOther},
		{"wrong input for executing tools fails", executing{Progress: p(1)}, Text("x"), false, false, "failed", terminate, nil, helikon.KindOther},
		{"wrong input for finalizing fails", finalizing{Progress: p(1)}, helikon.Start{}, false, true, "failed", terminate, nil, helikon.KindOther},
		{"wrong input for repairing fails", repairing{Progress: p(1)}, helikon.Start{}, false, true, "failed", terminate, nil, helikon.KindOther},
		{"wrong input for a handoff fails", handoff{Progress: p(1)}, Text("x"), false, false, "failed", terminate, nil, helikon.KindOther},
		{"compacting is not driven", helikon.Compacting{Progress: p(1)}, Text("x"), false, false, "failed", terminate, nil, helikon.KindOther},
		{"pending approvals suspend executing tools", executing{Progress: p(1), Calls: Calls("add", "add").Calls}, helikon.ApprovalsPending{Pending: Calls("add").Calls}, true, false, "needs_approval", pause, nil, ""},
		{"approvals pending with no call fails", executing{Progress: p(1), Calls: Calls("add").Calls}, helikon.ApprovalsPending{}, true, false, "failed", terminate, nil, helikon.KindOther},
		{"resolved approvals run the round again", approval{Progress: p(1), Calls: Calls("add", "add").Calls, Pending: Calls("add").Calls}, helikon.ApprovalsResolved{}, true, false, "executing_tools", execute, nil, ""},
		{"abort fails needs approval", approval{Progress: p(1)}, helikon.Abort{Err: context.Canceled}, true, false, "failed", terminate, nil, helikon.KindCancelled},
		{"a model response cannot resume needs approval", approval{Progress: p(1)}, Text("x"), false, false, "failed", terminate, nil, helikon.KindOther},
		{"tool results cannot resume needs approval", approval{Progress: p(1)}, helikon.ToolResults{}, true, false, "failed", terminate, nil, helikon.KindOther},
		{"approvals pending outside a tool round fails", calling{Progress: p(1)}, helikon.ApprovalsPending{Pending: Calls("add").Calls}, true, false, "failed", terminate, nil, helikon.KindOther},
		{"approvals resolved outside a pause fails", executing{Progress: p(1)}, helikon.ApprovalsResolved{}, true, false, "failed", terminate, nil, helikon.KindOther},
		{"a paused handoff target pauses the run in place", handoff{Progress: p(1), Target: "b"}, helikon.HandoffPaused{}, true, false, "applying_handoff", pause, nil, ""},
		{"handoff paused outside a handoff fails", calling{Progress: p(1)}, helikon.HandoffPaused{}, true, false, "failed", terminate, nil, helikon.KindOther},
	}
}

// Check reports where a transition's outcome (its next state, its action's
// kind and its events) departs from the row.
func (c Case) Check(t testing.TB, next helikon.LoopState, action helikon.ActionKind, events []helikon.Event) {
	t.Helper()
	if got := TypeOf(next); got != c.WantState {
		b, _ := json.Marshal(next)
		t.Fatalf("next state = %s (%s), want %s", got, b, c.WantState)
	}
	if action != c.WantAction {
		t.Errorf("action = %v, want %v", action, c.WantAction)
	}
	if got := EventTypes(events); !slices.Equal(got, c.WantEvents) {
		t.Errorf("events = %v, want %v", got, c.WantEvents)
	}
	if f, ok := next.(helikon.Failed); ok {
		if f.Err.Kind != c.WantKind {
			t.Errorf("failure kind = %s, want %s (%v)", f.Err.Kind, c.WantKind, f.Err)
		}
	} else if c.WantKind != "" {
		t.Errorf("want failure %s, got %T", c.WantKind, next)
	}
}

// TypeOf returns the "type" member v encodes with: a loop state's or an
// event's name.
func TypeOf(v any) string {
	b, _ := json.Marshal(v)
	var h struct{ Type string }
	_ = json.Unmarshal(b, &h)
	return h.Type
}

// EventTypes returns the types of evs.
func EventTypes(evs []helikon.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, TypeOf(e))
	}
	return out
}
