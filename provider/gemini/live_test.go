package gemini_test

import (
	"os"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

// TestLive_TextAndToolCall runs against the real Developer API only when
// GEMINI_API_KEY is set (HELIKON_GEMINI_MODEL picks the model).
func TestLive_TextAndToolCall(t *testing.T) {
	if os.Getenv("GEMINI_API_KEY") == "" {
		t.Skip("live test: set GEMINI_API_KEY to run against the real Gemini API")
	}
	id := os.Getenv("HELIKON_GEMINI_MODEL")
	if id == "" {
		id = "gemini-2.5-flash"
	}
	m, err := gemini.New(id)
	if err != nil {
		t.Fatal(err)
	}
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("Say the word pong and nothing else.")}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var text strings.Builder
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.TokenDelta); ok {
			text.WriteString(d.Text)
		}
	}
	if !strings.Contains(strings.ToLower(text.String()), "pong") {
		t.Errorf("answer = %q", text.String())
	}
	res = providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("What's the weather in Paris? Use the tool."),
		Tools: []helikon.ToolDef{providertest.WeatherTool}, Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	found := false
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.ToolCallDelta); ok && d.Name == "get_weather" {
			found = true
		}
	}
	if !found {
		t.Errorf("no get_weather call in %v", res.Events)
	}
}
