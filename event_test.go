package helikon_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/paigasus/helikon"
)

func TestEvent_EveryVariantRoundTripsThroughJSON(t *testing.T) {
	asst := helikon.Item{Role: helikon.RoleAssistant, Agent: "a", Content: []helikon.ContentPart{
		helikon.ReasoningPart{Text: "hmm", Signature: "s"},
		helikon.ReasoningPart{Data: "opaque-redacted-thinking", ID: "rs_1"},
		helikon.TextPart{Text: "hi"},
		helikon.ToolUsePart{CallID: "c", Name: "add", Args: json.RawMessage(`{"a":1}`)},
		helikon.ImagePart{MediaType: "image/png", Data: []byte{1, 2, 3}},
	}}
	tool := helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
		CallID: "c", Name: "add", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "boom"}},
	}}}
	events := []helikon.Event{
		helikon.RunStarted{Agent: "a"},
		helikon.TurnStarted{Agent: "a", Turn: 2},
		helikon.TokenDelta{Text: "t"},
		helikon.ReasoningDelta{Text: "r"},
		helikon.ToolCallDelta{CallID: "c", Name: "add", ArgsDelta: `{"a"`},
		helikon.MessageOutput{Item: asst},
		helikon.ToolCallItem{Item: asst},
		helikon.ToolOutputItem{Item: tool},
		helikon.HandoffItem{From: "a", To: "b"},
		helikon.AgentUpdated{Agent: "b"},
		helikon.GuardrailTriggered{Kind: helikon.GuardrailInputPolicy, Info: map[string]any{"matched": "key"}},
		helikon.ApprovalRequested{CallID: "c", Tool: "Bash", Args: json.RawMessage(`{"command":"ls"}`)},
		helikon.PermissionDenied{CallID: "c", Tool: "Bash", Reason: "no"},
		helikon.RepairStarted{Attempt: 1},
		helikon.StructuredOutputFailed{SchemaErrors: []string{"missing a"}, FinalText: "{}"},
		helikon.RunCompleted{Agent: "a", Usage: helikon.Usage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 3, ReasoningTokens: 4}},
		helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindMaxTurnsExceeded, Message: "16 turns"}},
		helikon.ModelResponded{Agent: "a", Turn: 2, Model: "m-1", ResponseID: "r1", Finish: helikon.FinishToolCalls,
			Usage: helikon.Usage{InputTokens: 10, OutputTokens: 5, Cost: 0.25}},
		helikon.SubRunEvent{CallID: "c", Tool: "research", Agent: "researcher", Event: helikon.ToolCallItem{Item: asst}},
		// An agent tool inside an agent tool: the nesting follows the calls.
		helikon.SubRunEvent{CallID: "c", Tool: "research", Agent: "researcher", Event: helikon.SubRunEvent{
			CallID: "d", Tool: "search", Agent: "searcher", Event: helikon.RunFailed{Err: helikon.ErrMaxTurnsExceeded}}},
	}
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		got, err := helikon.UnmarshalEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		b2, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != string(b2) {
			t.Errorf("round trip changed\n%s\ninto\n%s", b, b2)
		}
	}
}

func TestEvent_DecodedRunFailedStillMatchesItsSentinel(t *testing.T) {
	b, _ := json.Marshal(helikon.RunFailed{Err: helikon.ErrMaxTurnsExceeded})
	ev, err := helikon.UnmarshalEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(ev.(helikon.RunFailed).Err, helikon.ErrMaxTurnsExceeded) {
		t.Fatalf("decoded %s does not match ErrMaxTurnsExceeded", b)
	}
}

func TestEvent_MalformedJSONIsATypedError(t *testing.T) {
	for _, in := range []string{`{`, `{"text":"x"}`, `{"type":"nope"}`, `{"type":"message_output","item":{"role":"user","content":[{"type":"bogus"}]}}`,
		`{"type":"message_output","item":{"role":"user","content":[{"text":"no type"}]}}`,
		`{"type":"message_output","item":{"role":"user","content":[{"type":"image","data":12}]}}`} {
		if _, err := helikon.UnmarshalEvent([]byte(in)); err == nil {
			t.Errorf("%s decoded without error", in)
		}
	}
}

func TestEvent_SubRunEventDecodingIsBounded(t *testing.T) {
	wrap := func(n int) string {
		s := `{"type":"run_started","agent":"x"}`
		for range n {
			s = `{"type":"sub_run_event","call_id":"c","tool":"t","agent":"a","event":` + s + `}`
		}
		return s
	}
	ev, err := helikon.UnmarshalEvent([]byte(wrap(helikon.MaxSubRunNesting)))
	if err != nil {
		t.Fatalf("%d levels: %v", helikon.MaxSubRunNesting, err)
	}
	depth := 0
	for {
		s, ok := ev.(helikon.SubRunEvent)
		if !ok {
			break
		}
		depth++
		ev = s.Event
	}
	if depth != helikon.MaxSubRunNesting || ev != (helikon.RunStarted{Agent: "x"}) {
		t.Fatalf("decoded %d levels around %#v", depth, ev)
	}
	for _, in := range []string{
		wrap(helikon.MaxSubRunNesting + 1),
		`{"type":"sub_run_event","call_id":"c"}`,
		`{"type":"sub_run_event","call_id":"c","event":null}`,
		`{"type":"sub_run_event","call_id":"c","event":{"type":"nope"}}`,
		`{"type":"sub_run_event","call_id":"c","event":{"type":"sub_run_event","event":[]}}`,
	} {
		if _, err := helikon.UnmarshalEvent([]byte(in)); err == nil {
			t.Errorf("%.120s decoded without error", in)
		}
	}
	if _, err := json.Marshal(helikon.SubRunEvent{CallID: "c"}); err == nil {
		t.Error("a sub_run_event without an event encoded")
	}
}
