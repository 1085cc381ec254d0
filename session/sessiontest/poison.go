package sessiontest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// InvalidArgs returns tool-call arguments a model can send that are not a
// JSON value a decoder accepts, keyed by what is wrong with them: cut off
// at max_tokens, nested past encoding/json's depth limit, not UTF-8.
func InvalidArgs() map[string]json.RawMessage {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	return map[string]json.RawMessage{
		"truncated":          json.RawMessage(`{"a":1,"b":`),
		"truncated-string":   json.RawMessage(`{"path":"/tmp/rep`),
		"nested-past-limit":  json.RawMessage(deep),
		"nested-past-stored": json.RawMessage(strings.Repeat(`{"a":`, 128+1) + "1" + strings.Repeat("}", 128+1)),
		"not-utf8":           json.RawMessage("{\"a\":\"\xff\xfe\"}"),
		"not-json":           json.RawMessage(`not json at all`),
	}
}

// testInvalidArgs pins that a tool call whose arguments are not valid JSON
// is stored whole, byte for byte, in a ToolCalled event and inside an
// assistant message, and that the rest of the batch is stored with it.
func testInvalidArgs(t *testing.T, s helikon.Session) {
	var want []helikon.SessionEvent
	want = append(want, session.UserMessage(helikon.TextPart{Text: "go"}))
	for name, args := range InvalidArgs() {
		want = append(want,
			session.AssistantMessage([]helikon.ContentPart{
				helikon.TextPart{Text: "calling " + name},
				helikon.ToolUsePart{CallID: "use-" + name, Name: "t", Args: args},
			}, "a"),
			session.ToolCalled("call-"+name, "t", args),
			session.ToolReturned("call-"+name, helikon.TextPart{Text: "invalid arguments"}),
		)
	}
	mustAppend(t, s, want...)
	got := mustEvents(t, s, helikon.Beginning)
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d: the batch was not stored whole", len(got), len(want))
	}
	for i := range want {
		if a, b := want[i].Args, got[i].Args; !bytes.Equal(a, b) {
			t.Errorf("event %d (%s) args = %.60q, want %.60q", i, want[i].Kind, b, a)
		}
		for j, p := range want[i].Content {
			use, ok := p.(helikon.ToolUsePart)
			if !ok {
				continue
			}
			gotUse, ok := got[i].Content[j].(helikon.ToolUsePart)
			if !ok || !bytes.Equal(gotUse.Args, use.Args) {
				t.Errorf("event %d part %d = %.80v, want a tool use with args %.60q", i, j, got[i].Content[j], use.Args)
			}
		}
	}
	items, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	calls := 0
	for _, it := range items {
		for _, u := range it.ToolUses() {
			calls++
			if want := InvalidArgs()[strings.TrimPrefix(strings.TrimPrefix(u.CallID, "use-"), "call-")]; !bytes.Equal(u.Args, want) {
				t.Errorf("Snapshot: call %s args = %.60q, want %.60q", u.CallID, u.Args, want)
			}
		}
	}
	if want := 2 * len(InvalidArgs()); calls != want {
		t.Errorf("Snapshot holds %d tool calls, want %d", calls, want)
	}
}

// testNUL pins that NUL characters in text, reasoning, tool results and
// argument strings are stored as they are.
func testNUL(t *testing.T, s helikon.Session) {
	want := []helikon.SessionEvent{
		session.UserMessage(helikon.TextPart{Text: "before\x00after"}, helikon.TextPart{Text: "\x00"}),
		session.AssistantMessage([]helikon.ContentPart{
			helikon.ReasoningPart{Text: "think\x00ing", Signature: "s\x00g"},
			helikon.TextPart{Text: "a\x00b"},
		}, "agent\x00name"),
		session.ToolCalled("c\x001", "t", json.RawMessage(`{"q":"nul \u0000 here"}`)),
		session.ToolReturned("c\x001", helikon.TextPart{Text: "out\x00put"}),
	}
	mustAppend(t, s, want...)
	got := mustEvents(t, s, helikon.Beginning)
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		want[i].Seq = helikon.SequenceID(i)
		if d := DiffEvent(want[i], got[i]); d != "" {
			t.Errorf("event %d (%s): %s", i, want[i].Kind, d)
		}
	}
}
