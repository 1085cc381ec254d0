package providertest

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// Live checks m against the provider's real API: a short text answer with
// usage, then a required call of [WeatherTool]. An adapter's live test
// calls it only when the provider's credentials are set, and skips
// otherwise, naming the variables.
func Live(t *testing.T, m helikon.Model) {
	t.Helper()
	res := Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("Say the word pong and nothing else.")}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var text strings.Builder
	var usage helikon.Usage
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.TokenDelta:
			text.WriteString(e.Text)
		case helikon.Usage:
			usage = e
		}
	}
	if !strings.Contains(strings.ToLower(text.String()), "pong") {
		t.Errorf("answer = %q", text.String())
	}
	if usage.InputTokens == 0 || usage.OutputTokens == 0 {
		t.Errorf("usage = %+v", usage)
	}
	res = Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("What's the weather in Paris? Use the tool."),
		Tools: []helikon.ToolDef{WeatherTool}, Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	called, finish := false, helikon.FinishReason("")
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.ToolCallDelta:
			called = called || e.Name == WeatherTool.Name
		case helikon.Finish:
			finish = e.Reason
		}
	}
	if !called || finish != helikon.FinishToolCalls {
		t.Errorf("no %s call (finish %q) in %v", WeatherTool.Name, finish, res.Events)
	}
}
