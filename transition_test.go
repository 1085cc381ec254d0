package helikon

import (
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
