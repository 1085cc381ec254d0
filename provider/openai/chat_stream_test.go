package openai

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// A tool-call index outside what one response can hold is a corrupt
// stream: it must end in a Transport error, on both paths, rather than panic
// on a negative index or size a slice by a huge one.
func TestChatDecoder_OutOfRangeToolCallIndexIsMalformed(t *testing.T) {
	const first = `data: {"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	for _, idx := range []string{"-1", "1000000000000"} {
		for _, slow := range []bool{false, true} {
			t.Run(idx+map[bool]string{false: "/fast", true: "/general"}[slow], func(t *testing.T) {
				ev := `data: {"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":` + idx +
					`,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}` + "\n\n"
				d := &chatDecoder{slowOnly: slow}
				got := replayWith(t, []byte(first+ev+"data: [DONE]\n\n"), d.handle)
				if !strings.Contains(got.err, string(helikon.ModelTransport)) || !strings.Contains(got.err, "tool call index") {
					t.Fatalf("slowOnly=%v: err = %q, want a Transport error naming the tool call index", slow, got.err)
				}
			})
		}
	}
}
