package openai

import (
	"net/http"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// providerName is the adapter's name in errors and traces.
const providerName = "openai"

// apiError is OpenAI's error object (components/schemas/Error in the
// OpenAPI spec), both in error responses and in stream error events.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"` // a string, or a number on some compatible servers
	Param   any    `json:"param"`
}

func (e *apiError) code() string {
	if s, ok := e.Code.(string); ok {
		return s
	}
	return ""
}

// classifyHTTP turns a non-2xx response into a ModelError.
func classifyHTTP(status int, h http.Header, body []byte) *helikon.ModelError {
	return httpx.ClassifyHTTP(status, h, body, classify)
}

// classify refines kind by the error's code and message: quota and billing
// errors arrive as 429 but waiting does not fix them, and context overflow
// arrives as a plain 400 (or as a failed stream event).
func classify(kind helikon.ModelErrorKind, e *apiError) *helikon.ModelError {
	me := &helikon.ModelError{Kind: kind, Provider: providerName}
	if e == nil {
		return me
	}
	me.Message = e.Message
	code, msg := e.code(), strings.ToLower(e.Message)
	switch {
	case code == "insufficient_quota" || e.Type == "insufficient_quota" ||
		strings.HasPrefix(code, "billing_") || strings.Contains(msg, "exceeded your current quota"):
		me.Kind = helikon.ModelOther
	case code == "context_length_exceeded" || strings.Contains(msg, "maximum context length") ||
		strings.Contains(msg, "context window"):
		me.Kind = helikon.ModelContextLengthExceeded
	case code == "rate_limit_exceeded" || e.Type == "rate_limit_exceeded" || e.Type == "tokens":
		me.Kind = helikon.ModelRateLimited
	case code == "server_error" || e.Type == "server_error" || code == "server_is_overloaded" || code == "slow_down":
		me.Kind = helikon.ModelUnavailable
	}
	return me
}
