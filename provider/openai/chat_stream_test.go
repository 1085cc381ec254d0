package openai

import (
	"testing"

	"github.com/paigasus/helikon"
)

// vLLM renamed reasoning_content to reasoning; a chunk carrying both (as
// in the Azure-hosted DeepSeek recording's shape, where the other is null)
// must yield the text once.
func TestChat_ReasoningInBothFieldsIsTakenOnce(t *testing.T) {
	body := mutate(t, "testdata/chat/deepseek_reasoning.sse", `"content":null,"reasoning_content":"We"}`, `"content":null,"reasoning_content":"We","reasoning":"We"}`)
	for _, slow := range []bool{false, true} {
		d := &chatDecoder{slowOnly: slow}
		r := replayWith(t, body, d.handle)
		var n int
		for _, ev := range r.events {
			if rd, ok := ev.(helikon.ReasoningDelta); ok && rd.Text == "We" {
				n++
			}
		}
		if r.err != "" || n != 1 {
			t.Errorf("slow=%v: %d reasoning deltas \"We\", err %q; want 1", slow, n, r.err)
		}
	}
}
