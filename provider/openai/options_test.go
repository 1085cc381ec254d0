package openai_test

import (
	"testing"

	"github.com/paigasus/helikon/provider/openai"
)

func TestConfig_BaseURLMustBeAnAbsoluteHTTPURL(t *testing.T) {
	for _, raw := range []string{"localhost:11434/v1", "api.openai.com/v1", "ftp://example.com",
		"https://proxy.example/v1?route=openai", "https://proxy.example/v1#x"} {
		if _, err := openai.Chat("gpt-4o", openai.WithAPIKey("k"), openai.WithBaseURL(raw)); err == nil {
			t.Errorf("Chat with base URL %q: accepted", raw)
		}
		if _, err := openai.Responses("gpt-4o", openai.WithAPIKey("k"), openai.WithBaseURL(raw)); err == nil {
			t.Errorf("Responses with base URL %q: accepted", raw)
		}
	}
}
