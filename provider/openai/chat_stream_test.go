package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
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
				var got error
				yield := func(_ helikon.ModelEvent, err error) bool {
					if err != nil {
						got = err
						return false
					}
					return true
				}
				d := &chatDecoder{slowOnly: slow}
				body := strings.NewReader(first + ev + "data: [DONE]\n\n")
				httpx.ReadEvents(t.Context(), providerName, body, yield, func(b []byte) bool { return d.handle(b, yield) })
				if !errors.Is(got, helikon.ErrTransport) {
					t.Fatalf("slowOnly=%v: err = %v, want a Transport ModelError", slow, got)
				}
			})
		}
	}
}
