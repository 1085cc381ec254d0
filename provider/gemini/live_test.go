package gemini_test

import (
	"os"
	"testing"

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
	providertest.Live(t, m)
}
