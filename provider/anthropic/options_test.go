package anthropic_test

import (
	"testing"

	"github.com/paigasus/helikon/provider/anthropic"
)

func TestMessages_ConstructorRejectsInvalidSettings(t *testing.T) {
	key := anthropic.WithAPIKey("k")
	tests := map[string][]anthropic.Option{
		"base URL without a scheme": {key, anthropic.WithBaseURL("localhost:8080")},
		"relative base URL":         {key, anthropic.WithBaseURL("api.anthropic.com")},
		"base URL with a query":     {key, anthropic.WithBaseURL("https://proxy.example/?route=anthropic")},
		"base URL with a fragment":  {key, anthropic.WithBaseURL("https://proxy.example/#x")},
		"non-positive max tokens":   {key, anthropic.WithMaxTokens(0)},
		"thinking budget too small": {key, anthropic.WithExtendedThinking(100)},
	}
	for name, opts := range tests {
		if _, err := anthropic.Messages("claude-sonnet-4-6", opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := anthropic.Messages(" ", key); err == nil {
		t.Error("empty model id accepted")
	}
}
