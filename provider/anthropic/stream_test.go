package anthropic

import (
	"errors"
	"testing"

	"github.com/paigasus/helikon"
)

// A block index outside what one response can hold is a corrupt stream: it
// must end in a Transport error, on both paths, rather than panic on a
// negative index or size a slice by a huge one.
func TestDecoder_OutOfRangeBlockIndexIsMalformed(t *testing.T) {
	const start = `data: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}` + "\n\n"
	tests := map[string]string{
		"negative start": `data: {"type":"content_block_start","index":-1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
		"huge start":     `data: {"type":"content_block_start","index":1000000000000,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
		"negative delta": `data: {"type":"content_block_delta","index":-1,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
		"huge delta":     `data: {"type":"content_block_delta","index":1000000000000,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
	}
	for name, ev := range tests {
		for _, slow := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/fast", true: "/general"}[slow], func(t *testing.T) {
				_, got := replay(t, &decoder{slowOnly: slow}, start+ev+"\n\n"+`data: {"type":"message_stop"}`+"\n\n")
				if !errors.Is(got, helikon.ErrTransport) {
					t.Fatalf("slowOnly=%v: err = %v, want a Transport ModelError", slow, got)
				}
			})
		}
	}
}
