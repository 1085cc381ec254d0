package openai_test

import (
	"os"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// liveModels returns the models on the real API, or skips: live tests run only
// when OPENAI_API_KEY is set (HELIKON_OPENAI_MODEL picks the model).
func liveModels(t *testing.T) map[string]helikon.Model {
	t.Helper()
	if os.Getenv("OPENAI_API_KEY") == "" {
		t.Skip("live test: set OPENAI_API_KEY to run against the real OpenAI API")
	}
	id := os.Getenv("HELIKON_OPENAI_MODEL")
	if id == "" {
		id = "gpt-5-mini"
	}
	chat, err := openai.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := openai.Responses(id)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]helikon.Model{"chat": chat, "responses": resp}
}

func TestLive_TextToolCallAndStructuredOutput(t *testing.T) {
	for name, m := range liveModels(t) {
		t.Run(name, func(t *testing.T) {
			res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("Say the word pong and nothing else.")}))
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if txt := liveText(res); !strings.Contains(strings.ToLower(txt), "pong") {
				t.Errorf("text = %q", txt)
			}
			res = providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{
				Messages: helikon.UserText("What's the weather in Paris? Use the tool."),
				Tools:    []helikon.ToolDef{providertest.WeatherTool},
				Settings: helikon.ModelSettings{ToolChoice: helikon.ForceTool("get_weather")},
			}))
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var call helikon.ToolCallDelta
			for _, ev := range res.Events {
				if d, ok := ev.(helikon.ToolCallDelta); ok && d.Name != "" {
					call = d
				}
			}
			if call.Name != "get_weather" || call.CallID == "" {
				t.Errorf("no get_weather call in %v", res.Events)
			}
			res = providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{
				Messages: helikon.UserText("Invent a plausible weather report for Paris."),
				Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema, Strict: true}},
			}))
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if !strings.HasPrefix(strings.TrimSpace(liveText(res)), "{") {
				t.Errorf("structured output = %q", liveText(res))
			}
		})
	}
}

func liveText(r providertest.Result) string {
	var b strings.Builder
	for _, ev := range r.Events {
		if d, ok := ev.(helikon.TokenDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}
