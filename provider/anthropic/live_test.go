package anthropic_test

import (
	"os"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// Live tests run only when ANTHROPIC_API_KEY is set (HELIKON_ANTHROPIC_MODEL
// picks the model).
func TestLive_TextThinkingAndToolCall(t *testing.T) {
	if os.Getenv("ANTHROPIC_API_KEY") == "" {
		t.Skip("live test: set ANTHROPIC_API_KEY to run against the real Anthropic API")
	}
	id := os.Getenv("HELIKON_ANTHROPIC_MODEL")
	if id == "" {
		id = "claude-sonnet-4-6"
	}
	m, err := anthropic.Messages(id, anthropic.WithExtendedThinking(1024), anthropic.WithCacheStrategy(anthropic.CacheAll))
	if err != nil {
		t.Fatal(err)
	}
	ask := helikon.UserText("What's the weather in Paris? Use the tool.")
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: ask, Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	turn := helikon.Item{Role: helikon.RoleAssistant}
	var reasoning helikon.ReasoningPart
	args := map[string]*helikon.ToolUsePart{}
	var order []string
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.ReasoningDelta:
			reasoning.Text += e.Text
			reasoning.Signature += e.Signature
		case helikon.ToolCallDelta:
			if args[e.CallID] == nil {
				args[e.CallID] = &helikon.ToolUsePart{CallID: e.CallID, Name: e.Name}
				order = append(order, e.CallID)
			}
			args[e.CallID].Args = append(args[e.CallID].Args, e.ArgsDelta...)
		}
	}
	if reasoning.Signature == "" || len(order) == 0 {
		t.Fatalf("want signed thinking and a tool call, got %v", res.Events)
	}
	turn.Content = append(turn.Content, reasoning)
	next := append(ask, turn)
	for _, id := range order {
		turn.Content = append(turn.Content, *args[id])
		next = append(next, helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
			CallID: id, Content: []helikon.ContentPart{helikon.TextPart{Text: `{"temperature_c":18,"conditions":"clear"}`}}}}})
	}
	next[len(ask)] = turn
	// The API rejects this turn unless the thinking block and its signature
	// came back unchanged.
	res = providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: next, Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var text strings.Builder
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.TokenDelta); ok {
			text.WriteString(d.Text)
		}
	}
	if !strings.Contains(text.String(), "18") {
		t.Errorf("answer does not use the tool result: %q", text.String())
	}
}
