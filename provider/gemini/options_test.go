package gemini_test

import (
	"testing"

	"github.com/paigasus/helikon/provider/gemini"
)

// A base URL that is not an absolute http(s) root, or that has a query or
// a fragment the API's path would land in, fails in the constructor.
func TestNew_RefusesABaseURLThePathCannotFollow(t *testing.T) {
	for _, raw := range []string{"localhost:8080", "https://proxy.example/?route=gemini", "https://proxy.example/#x"} {
		if _, err := gemini.New("gemini-2.5-flash", gemini.WithAPIKey("k"), gemini.WithBaseURL(raw)); err == nil {
			t.Errorf("New with base URL %q: accepted", raw)
		}
	}
}
