package anthropic

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// With forced-tool structured output, the tool's input is the answer: its
// JSON streams as text and a turn that only called it is a plain stop.
func TestDecoder_ForcedOutputToolStreamsAsText(t *testing.T) {
	data, err := os.ReadFile("testdata/tool_call.sse")
	if err != nil {
		t.Fatal(err)
	}
	d := decoder{outputTool: "get_weather"}
	var text string
	var finish helikon.FinishReason
	yield := func(ev helikon.ModelEvent, err error) bool {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case helikon.TokenDelta:
			text += e.Text
		case helikon.ToolCallDelta:
			t.Errorf("the output tool surfaced as a tool call: %+v", e)
		case helikon.Finish:
			finish = e.Reason
		}
		return true
	}
	httpx.ReadEvents(t.Context(), providerName, strings.NewReader(string(data)), 0, yield, func(b []byte) bool { return d.handle(b, yield) })
	const prose = "I'll get the current weather in San Francisco for you in Fahrenheit."
	answer, ok := strings.CutPrefix(text, prose)
	if !ok || !json.Valid([]byte(answer)) || finish != helikon.FinishStop {
		t.Errorf("text %q finish %s", text, finish)
	}
}
