package anthropic

import (
	"net/http"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

const providerName = "anthropic"

// apiError is the error object of an error response or an error event:
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// classifyHTTP turns a non-2xx response into a ModelError.
func classifyHTTP(status int, h http.Header, body []byte) *helikon.ModelError {
	return httpx.ClassifyHTTP(status, h, body, classify)
}

// classify refines kind by the error type, which is all an error arriving
// inside a 200 stream has to go on.
func classify(kind helikon.ModelErrorKind, e *apiError) *helikon.ModelError {
	me := &helikon.ModelError{Kind: kind, Provider: providerName}
	if e == nil {
		return me
	}
	me.Message = e.Message
	msg := strings.ToLower(e.Message)
	switch {
	case e.Type == "overloaded_error" || e.Type == "api_error":
		me.Kind = helikon.ModelUnavailable
	case e.Type == "rate_limit_error":
		me.Kind = helikon.ModelRateLimited
	case e.Type == "billing_error":
		me.Kind = helikon.ModelOther
	case e.Type == "timeout_error":
		me.Kind = helikon.ModelTransport
	case strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "exceed context limit") ||
		strings.Contains(msg, "context window"):
		me.Kind = helikon.ModelContextLengthExceeded
	}
	return me
}
