package helikon_test

import (
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
)

// BenchmarkSessionEvent_Unmarshal decodes the payloads a session backend
// reads back: a user message, an assistant message, a tool call and a tool
// result.
func BenchmarkSessionEvent_Unmarshal(b *testing.B) {
	evs := []helikon.SessionEvent{
		helikon.UserMessage(helikon.TextPart{Text: "How am I doing on my dining budget this month?"}),
		helikon.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "Let me check."}}, "budget-assistant"),
		helikon.ToolCalled("call_1", "lookup_spending", json.RawMessage(`{"category":"Dining","month":"2026-11"}`)),
		helikon.ToolReturned("call_1", helikon.TextPart{Text: `{"total":312.4,"count":18}`}),
	}
	var payloads [][]byte
	for _, ev := range evs {
		p, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		payloads = append(payloads, p)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range payloads {
			var ev helikon.SessionEvent
			if err := json.Unmarshal(p, &ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}
