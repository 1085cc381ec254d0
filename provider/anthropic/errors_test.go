package anthropic

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
)

func TestClassify_MapsEachErrorShape(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		kind   helikon.ModelErrorKind
	}{
		{"input plus max_tokens over the window", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"input length and ` + "`max_tokens`" + ` exceed context limit: 199000 + 8000 > 200000"}}`, helikon.ModelContextLengthExceeded},
		{"billing is not retryable", 400, `{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low to access the Anthropic API."}}`, helikon.ModelOther},
		{"rate limit type on any status", 400, `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}`, helikon.ModelRateLimited},
		{"timeout_error", 504, `{"type":"error","error":{"type":"timeout_error","message":"Request timed out"}}`, helikon.ModelTransport},
		{"authentication", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, helikon.ModelOther},
		{"529 without a body", 529, ``, helikon.ModelUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			me := classifyHTTP(tt.status, http.Header{}, []byte(tt.body))
			if me.Kind != tt.kind || me.StatusCode != tt.status || me.Provider != "anthropic" {
				t.Errorf("got %v, want kind %s", me, tt.kind)
			}
		})
	}
}
