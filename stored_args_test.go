package helikon_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
)

// Invalid tool-call arguments survive JSON byte for byte, in a session
// event and in an item's tool use, and valid ones stay a JSON value.
func TestStoredArgs_InvalidArgumentsRoundTripByteForByte(t *testing.T) {
	cases := sessiontest.InvalidArgs()
	cases["valid"] = json.RawMessage(`{"a":[1,2]}`)
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(session.ToolCalled("c", "t", args))
			if err != nil {
				t.Fatalf("marshal event: %v", err)
			}
			var ev helikon.SessionEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatalf("unmarshal event: %v", err)
			}
			if !bytes.Equal(ev.Args, args) {
				t.Fatalf("event args = %.60q, want %.60q", ev.Args, args)
			}
			it := helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.ToolUsePart{CallID: "c", Name: "t", Args: args}}}
			if data, err = json.Marshal(it); err != nil {
				t.Fatalf("marshal item: %v", err)
			}
			var back helikon.Item
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("unmarshal item: %v", err)
			}
			if uses := back.ToolUses(); len(uses) != 1 || !bytes.Equal(uses[0].Args, args) {
				t.Fatalf("item tool use = %+v, want args %.60q", back.Content, args)
			}
			if name == "valid" && !bytes.Contains(data, []byte(`"args":{"a":[1,2]}`)) {
				t.Fatalf("valid args not kept as a JSON value: %s", data)
			}
		})
	}
}
