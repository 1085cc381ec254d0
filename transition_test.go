package helikon

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type answer struct {
	Category string `json:"category"`
	Score    int    `json:"score"`
}

func testCtx(t *testing.T, withTools, withOutput bool) *TransitionCtx {
	t.Helper()
	tc := &TransitionCtx{
		Agent:        "a",
		System:       []Item{SystemItem("be brief")},
		Conversation: UserText("hi"),
		MaxTurns:     3,
		Handoffs:     map[string]string{"transfer_to_b": "b"},
	}
	if withTools {
		tc.Tools = []ToolDef{{Name: "add", Parameters: &jsonschema.Schema{Type: "object"}}}
	}
	if withOutput {
		ot, err := OutputTypeOf[answer]()
		if err != nil {
			t.Fatal(err)
		}
		tc.Output = ot
	}
	return tc
}

func text(s string) ModelResponse {
	return ModelResponse{Message: Item{Role: RoleAssistant, Content: []ContentPart{TextPart{Text: s}}}, Usage: Usage{InputTokens: 1, OutputTokens: 1}}
}

func calls(names ...string) ModelResponse {
	r := ModelResponse{Message: Item{Role: RoleAssistant}, Usage: Usage{InputTokens: 1, OutputTokens: 1}}
	for i, n := range names {
		c := ToolCall{CallID: string(rune('a' + i)), Name: n, Args: json.RawMessage(`{}`)}
		r.Calls = append(r.Calls, c)
		r.Message.Content = append(r.Message.Content, ToolUsePart{CallID: c.CallID, Name: c.Name, Args: c.Args})
	}
	return r
}

func eventTypes(evs []Event) []string {
	var out []string
	for _, e := range evs {
		b, _ := json.Marshal(e)
		var h struct{ Type string }
		_ = json.Unmarshal(b, &h)
		out = append(out, h.Type)
	}
	return out
}

func TestTransition_Table(t *testing.T) {
	p := func(turn int) Progress { return Progress{Turn: turn, Usage: Usage{InputTokens: 1, OutputTokens: 1}} }
	invalid := ToolResults{Results: []ToolResult{{CallID: "a", Name: "add", IsError: true, InvalidArgs: true, Content: []ContentPart{TextPart{Text: "bad"}}}}}
	tests := []struct {
		name       string
		state      LoopState
		in         TransitionInput
		tools      bool
		output     bool
		wantState  string
		wantAction ActionKind
		wantEvents []string
		wantKind   ErrorKind
	}{
		{"start without tools or output calls the model", nil, Start{}, false, false, "calling_model", ActCallModel, []string{"run_started", "turn_started"}, ""},
		{"start with output but no tools goes straight to finalizing", nil, Start{}, false, true, "finalizing", ActCallModel, []string{"run_started", "turn_started"}, ""},
		{"start with tools and output calls the model first", nil, Start{}, true, true, "calling_model", ActCallModel, []string{"run_started", "turn_started"}, ""},
		{"non-start input on a fresh run fails", nil, text("x"), false, false, "failed", ActTerminate, nil, KindOther},
		{"text answer completes", CallingModel{p(1)}, text("hello"), false, false, "done", ActTerminate, []string{"model_responded", "message_output"}, ""},
		{"tool calls execute tools", CallingModel{p(1)}, calls("add", "add"), true, false, "executing_tools", ActExecuteTools, []string{"model_responded", "tool_call_item", "tool_call_item"}, ""},
		{"transfer call applies the handoff", CallingModel{p(1)}, calls("add", "transfer_to_b"), true, false, "applying_handoff", ActHandoff, []string{"model_responded", "tool_call_item", "tool_call_item", "tool_output_item", "tool_output_item"}, ""},
		{"valid structured text completes without finalizing", CallingModel{p(1)}, text(`{"category":"x","score":1}`), true, true, "done", ActTerminate, []string{"model_responded", "message_output"}, ""},
		{"plain text with an output type moves to finalizing", CallingModel{p(1)}, text("I think it is x"), true, true, "finalizing", ActCallModel, []string{"model_responded", "message_output", "turn_started"}, ""},
		{"finalizing miss starts the repair turn", Finalizing{p(1)}, text(`{"category":1}`), false, true, "repairing_output", ActCallModel, []string{"model_responded", "message_output", "repair_started", "turn_started"}, ""},
		{"finalizing hit completes", Finalizing{p(1)}, text(`{"category":"x","score":2}`), false, true, "done", ActTerminate, []string{"model_responded", "message_output"}, ""},
		{"repair miss fails with invalid structured output", RepairingOutput{Progress: p(2), Attempt: 1}, text("nope"), false, true, "failed", ActTerminate, []string{"model_responded", "message_output", "structured_output_failed"}, KindInvalidStructuredOutput},
		{"repair hit completes", RepairingOutput{Progress: p(2), Attempt: 1}, text(`{"category":"x","score":3}`), false, true, "done", ActTerminate, []string{"model_responded", "message_output"}, ""},
		{"tool results start the next turn", ExecutingTools{Progress: p(1), Calls: calls("add").Calls}, ToolResults{Results: []ToolResult{{CallID: "a", Name: "add", Content: []ContentPart{TextPart{Text: "{}"}}}}}, true, false, "calling_model", ActCallModel, []string{"tool_output_item", "turn_started"}, ""},
		{"tool results past the turn budget fail", ExecutingTools{Progress: p(3), Calls: calls("add").Calls}, ToolResults{Results: []ToolResult{{CallID: "a", Name: "add"}}}, true, false, "failed", ActTerminate, []string{"tool_output_item"}, KindMaxTurnsExceeded},
		{"first invalid args are fed back", ExecutingTools{Progress: p(1), Calls: calls("add").Calls}, invalid, true, false, "calling_model", ActCallModel, []string{"tool_output_item", "turn_started"}, ""},
		{"second invalid args for the same tool fail", ExecutingTools{Progress: Progress{Turn: 2, Strikes: []string{"add"}}, Calls: calls("add").Calls}, invalid, true, false, "failed", ActTerminate, []string{"tool_output_item"}, KindTool},
		{"handoff return completes with summed usage", ApplyingHandoff{Progress: p(1), Target: "b"}, HandoffReturned{Output: "from b", Usage: Usage{InputTokens: 5}}, true, false, "done", ActTerminate, nil, ""},
		{"handoff failure fails", ApplyingHandoff{Progress: p(1), Target: "b"}, HandoffReturned{Err: ErrMaxTurnsExceeded}, true, false, "failed", ActTerminate, nil, KindMaxTurnsExceeded},
		{"abort fails a calling state", CallingModel{p(1)}, Abort{Err: context.Canceled}, false, false, "failed", ActTerminate, nil, KindCancelled},
		{"abort fails executing tools", ExecutingTools{Progress: p(1)}, Abort{Err: &ModelError{Kind: ModelTransport}}, true, false, "failed", ActTerminate, nil, KindModel},
		{"abort leaves done alone", Done{Output: "x"}, Abort{Err: context.Canceled}, false, false, "done", ActTerminate, nil, ""},
		{"done is terminal", Done{Output: "x"}, text("y"), false, false, "done", ActTerminate, nil, ""},
		{"failed is terminal", Failed{Err: ErrMaxTurnsExceeded}, text("y"), false, false, "failed", ActTerminate, nil, KindMaxTurnsExceeded},
		{"wrong input for a calling state fails", CallingModel{p(1)}, ToolResults{}, false, false, "failed", ActTerminate, nil, KindOther},
		{"wrong input for executing tools fails", ExecutingTools{Progress: p(1)}, text("x"), false, false, "failed", ActTerminate, nil, KindOther},
		{"wrong input for finalizing fails", Finalizing{p(1)}, Start{}, false, true, "failed", ActTerminate, nil, KindOther},
		{"wrong input for repairing fails", RepairingOutput{Progress: p(1)}, Start{}, false, true, "failed", ActTerminate, nil, KindOther},
		{"wrong input for a handoff fails", ApplyingHandoff{Progress: p(1)}, text("x"), false, false, "failed", ActTerminate, nil, KindOther},
		{"compacting is not driven", Compacting{p(1)}, text("x"), false, false, "failed", ActTerminate, nil, KindOther},
		{"pending approvals suspend executing tools", ExecutingTools{Progress: p(1), Calls: calls("add", "add").Calls}, ApprovalsPending{Pending: calls("add").Calls}, true, false, "needs_approval", ActPause, nil, ""},
		{"approvals pending with no call fails", ExecutingTools{Progress: p(1), Calls: calls("add").Calls}, ApprovalsPending{}, true, false, "failed", ActTerminate, nil, KindOther},
		{"resolved approvals run the round again", NeedsApproval{Progress: p(1), Calls: calls("add", "add").Calls, Pending: calls("add").Calls}, ApprovalsResolved{}, true, false, "executing_tools", ActExecuteTools, nil, ""},
		{"abort fails needs approval", NeedsApproval{Progress: p(1)}, Abort{Err: context.Canceled}, true, false, "failed", ActTerminate, nil, KindCancelled},
		{"a model response cannot resume needs approval", NeedsApproval{Progress: p(1)}, text("x"), false, false, "failed", ActTerminate, nil, KindOther},
		{"tool results cannot resume needs approval", NeedsApproval{Progress: p(1)}, ToolResults{}, true, false, "failed", ActTerminate, nil, KindOther},
		{"approvals pending outside a tool round fails", CallingModel{p(1)}, ApprovalsPending{Pending: calls("add").Calls}, true, false, "failed", ActTerminate, nil, KindOther},
		{"approvals resolved outside a pause fails", ExecutingTools{Progress: p(1)}, ApprovalsResolved{}, true, false, "failed", ActTerminate, nil, KindOther},
		{"a paused handoff target pauses the run in place", ApplyingHandoff{Progress: p(1), Target: "b"}, HandoffPaused{}, true, false, "applying_handoff", ActPause, nil, ""},
		{"handoff paused outside a handoff fails", CallingModel{p(1)}, HandoffPaused{}, true, false, "failed", ActTerminate, nil, KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := testCtx(t, tt.tools, tt.output)
			out := Transition(tt.state, tt.in, tc)
			b, _ := json.Marshal(out.Next)
			var h struct{ Type string }
			_ = json.Unmarshal(b, &h)
			if h.Type != tt.wantState {
				t.Fatalf("next state = %s (%s), want %s", h.Type, b, tt.wantState)
			}
			if out.Action.Kind != tt.wantAction {
				t.Errorf("action = %v, want %v", out.Action.Kind, tt.wantAction)
			}
			if got := eventTypes(out.Events); !equalStrings(got, tt.wantEvents) {
				t.Errorf("events = %v, want %v", got, tt.wantEvents)
			}
			if f, ok := out.Next.(Failed); ok {
				if f.Err.Kind != tt.wantKind {
					t.Errorf("failure kind = %s, want %s (%v)", f.Err.Kind, tt.wantKind, f.Err)
				}
			} else if tt.wantKind != "" {
				t.Errorf("want failure %s, got %T", tt.wantKind, out.Next)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTransition_FinalizingRequestIsStrictSchemaWithToolsOff(t *testing.T) {
	tc := testCtx(t, true, true)
	out := Transition(CallingModel{Progress{Turn: 1}}, text("prose"), tc)
	req := out.Action.Request
	if req == nil || req.Settings.ResponseFormat == nil {
		t.Fatalf("finalizing request has no response format: %+v", req)
	}
	rf := req.Settings.ResponseFormat
	if rf.Type != FormatJSONSchema || !rf.Strict || rf.Name != "answer" || rf.Schema == nil {
		t.Errorf("response format = %+v", rf)
	}
	if req.Settings.ToolChoice.Mode != ToolChoiceNone {
		t.Errorf("tool choice = %+v, want none", req.Settings.ToolChoice)
	}
	// The request carries system, conversation and the prose answer, in order.
	if n := len(req.Messages); n != 3 || req.Messages[0].Role != RoleSystem || req.Messages[2].Text() != "prose" {
		t.Errorf("messages = %+v", req.Messages)
	}
}

func TestTransition_HandoffGivesEverySiblingCallAResult(t *testing.T) {
	tc := testCtx(t, true, false)
	out := Transition(CallingModel{Progress{Turn: 1}}, calls("add", "transfer_to_b"), tc)
	var results []ToolResultPart
	for _, it := range out.Appends {
		if it.Role == RoleTool {
			results = append(results, it.Content[0].(ToolResultPart))
		}
	}
	if len(results) != 2 || !results[0].IsError || results[1].IsError {
		t.Fatalf("results = %+v", results)
	}
	if got := results[1].Content[0].(TextPart).Text; got != `{"assistant":"b"}` {
		t.Errorf("transfer result = %s", got)
	}
}

func TestTransition_IsPure(t *testing.T) {
	tc := testCtx(t, true, false)
	conv := append([]Item(nil), tc.Conversation...)
	s := CallingModel{Progress{Turn: 1}}
	a := Transition(s, calls("add"), tc)
	b := Transition(s, calls("add"), tc)
	ja, _ := json.Marshal(a.Next)
	jb, _ := json.Marshal(b.Next)
	if string(ja) != string(jb) || len(a.Events) != len(b.Events) {
		t.Fatalf("same input gave different outcomes: %s vs %s", ja, jb)
	}
	if len(tc.Conversation) != len(conv) {
		t.Fatalf("transition modified the conversation")
	}
}

func TestLoopState_JSONRoundTrip(t *testing.T) {
	states := []LoopState{
		CallingModel{Progress{Turn: 2, Usage: Usage{InputTokens: 3}, Strikes: []string{"add"}, ResponseID: "r1"}},
		ExecutingTools{Progress: Progress{Turn: 1}, Calls: []ToolCall{{CallID: "c", Name: "add", Args: json.RawMessage(`{"a":1}`)}}},
		ApplyingHandoff{Progress: Progress{Turn: 1}, Target: "b"},
		Finalizing{Progress{Turn: 4}},
		RepairingOutput{Progress: Progress{Turn: 5}, Attempt: 1},
		Compacting{Progress{Turn: 1}},
		NeedsApproval{Progress: Progress{Turn: 1}, Pending: []ToolCall{{CallID: "p", Name: "rm"}}},
		Done{Output: "ok", Usage: Usage{OutputTokens: 9}},
		Failed{Err: &AgentError{Kind: KindMaxTurnsExceeded, Message: "16 turns"}},
	}
	for _, s := range states {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalLoopState(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		b2, _ := json.Marshal(got)
		if string(b) != string(b2) {
			t.Errorf("round trip changed %s into %s", b, b2)
		}
	}
	if f, _ := UnmarshalLoopState([]byte(`{"type":"failed","error":{"kind":"max_turns_exceeded"}}`)); !errors.Is(f.(Failed).Err, ErrMaxTurnsExceeded) {
		t.Errorf("decoded failure does not match its sentinel")
	}
	if _, err := UnmarshalLoopState([]byte(`{"type":"warp"}`)); err == nil {
		t.Error("unknown state type decoded without error")
	}
}
