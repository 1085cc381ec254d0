package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// assistantTurn assembles a streamed turn the way the loop stores it.
func assistantTurn(evs []helikon.ModelEvent) helikon.Item {
	it := helikon.Item{Role: helikon.RoleAssistant}
	var reasoning, text string
	var calls []helikon.ToolUsePart
	for _, ev := range evs {
		switch e := ev.(type) {
		case helikon.ReasoningDelta:
			reasoning += e.Text
		case helikon.TokenDelta:
			text += e.Text
		case helikon.ToolCallDelta:
			if e.Name != "" {
				calls = append(calls, helikon.ToolUsePart{CallID: e.CallID, Name: e.Name})
			}
			calls[len(calls)-1].Args = append(calls[len(calls)-1].Args, e.ArgsDelta...)
		}
	}
	if reasoning != "" {
		it.Content = append(it.Content, helikon.ReasoningPart{Text: reasoning})
	}
	if text != "" {
		it.Content = append(it.Content, helikon.TextPart{Text: text})
	}
	for _, c := range calls {
		it.Content = append(it.Content, c)
	}
	return it
}

// The DeepSeek recording reasons, then calls a tool. DeepSeek's thinking
// mode answers 400 unless the next request carries that reasoning back as
// the tool-calling message's reasoning_content.
func TestChat_ReasoningOfAToolCallGoesBackWhereTheServerRequiresIt(t *testing.T) {
	const recording = "testdata/chat/deepseek_reasoning_tool_call.sse"
	for _, tc := range []struct {
		name  string
		opts  []openai.Option
		field string
	}{
		{"reasoning_content", []openai.Option{openai.WithReasoningInHistory(openai.ReasoningContentField)}, "reasoning_content"},
		{"reasoning", []openai.Option{openai.WithReasoningInHistory(openai.ReasoningField)}, "reasoning"},
		{"none by default", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got capture
			url := serve(t, recording, &got)
			m, err := openai.Chat("deepseek-reasoner", append([]openai.Option{openai.WithBaseURL(url), openai.WithAPIKey("k")}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			msgs := helikon.UserText("What's the weather in San Francisco?")
			first := invoke(t, m, &helikon.ModelRequest{Messages: msgs, Tools: []helikon.ToolDef{providertest.WeatherTool}})
			turn := assistantTurn(first.Events)
			call := turn.ToolUses()[0]
			next := append(msgs, turn, helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
				CallID: call.CallID, Content: []helikon.ContentPart{helikon.TextPart{Text: `{"temperature":18}`}}}}})
			invoke(t, m, &helikon.ModelRequest{Messages: next, Tools: []helikon.ToolDef{providertest.WeatherTool}})
			var req struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(got.raw, &req); err != nil {
				t.Fatal(err)
			}
			asst := req.Messages[1]
			for _, f := range []string{"reasoning_content", "reasoning"} {
				raw, present := asst[f]
				switch {
				case f != tc.field && present:
					t.Errorf("assistant message carries %s: %s", f, raw)
				case f == tc.field:
					var s string
					_ = json.Unmarshal(raw, &s)
					if want := turn.Content[0].(helikon.ReasoningPart).Text; s != want {
						t.Errorf("%s = %q, want the streamed reasoning %q", f, s, want)
					}
				}
			}
		})
	}
}
