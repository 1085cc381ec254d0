package anthropic_test

import (
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
)

func TestMessages_WithCapabilitiesOverridesTheReportedFlags(t *testing.T) {
	caps := helikon.ModelCapabilities{Streaming: true, Tools: true}
	m, err := anthropic.Messages("claude-sonnet-4-6", anthropic.WithAPIKey("k"), anthropic.WithCapabilities(caps))
	if err != nil {
		t.Fatal(err)
	}
	if m.Capabilities() != caps {
		t.Fatalf("capabilities = %+v", m.Capabilities())
	}
	d, _ := anthropic.Messages("claude-sonnet-4-6", anthropic.WithAPIKey("k"))
	if !d.Capabilities().PromptCaching {
		t.Fatalf("default capabilities lost prompt caching: %+v", d.Capabilities())
	}
}
