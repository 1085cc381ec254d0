package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// apiError is Google's error object (google.rpc.Status as JSON):
// {"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED","details":[…]}}.
type apiError struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Status  string   `json:"status"`
	Details []detail `json:"details"`
}

// detail is one entry of details; only RetryInfo and ErrorInfo matter here.
type detail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
	Reason     string `json:"reason"`
}

// classifyHTTP turns an error response into a ModelError, taking the retry
// delay from RetryInfo, which Google sends instead of a Retry-After header.
func (m *Model) classifyHTTP(status int, h http.Header, body []byte) *helikon.ModelError {
	body = statusInArray(body)
	var env struct {
		Error *apiError `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	me := httpx.ClassifyHTTP(status, h, body, func(kind helikon.ModelErrorKind, e *apiError) *helikon.ModelError {
		return classify(kind, e, m.keyVar)
	})
	if me.Kind == helikon.ModelRateLimited && env.Error != nil {
		if d := retryDelay(env.Error); d > 0 {
			me.RetryAfter = d
		}
	}
	return me
}

// statusInArray returns the first element of a body that is a JSON array,
// as Vertex AI's streamGenerateContent sends its errors
// ([{"error":{…}}]), and any other body as it is.
func statusInArray(body []byte) []byte {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		return body
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil || len(elems) == 0 {
		return body
	}
	return elems[0]
}

// classify refines kind by the error's status and message. keyVar, when
// set, names the credentials to check after an authentication failure.
func classify(kind helikon.ModelErrorKind, e *apiError, keyVar string) *helikon.ModelError {
	me := &helikon.ModelError{Kind: kind, Provider: providerName}
	if e == nil {
		return me
	}
	me.Message = e.Message
	msg := strings.ToLower(e.Message)
	switch {
	case e.Status == "RESOURCE_EXHAUSTED":
		me.Kind = helikon.ModelRateLimited
		if kind != helikon.ModelRateLimited {
			me.RetryAfter = retryDelay(e) // inside a stream there is no header to read
		}
	case e.Status == "UNAVAILABLE" || e.Status == "INTERNAL":
		me.Kind = helikon.ModelUnavailable
	case e.Status == "DEADLINE_EXCEEDED":
		me.Kind = helikon.ModelTransport
	case e.Status == "PERMISSION_DENIED" || e.Status == "UNAUTHENTICATED" || hasReason(e, "API_KEY_INVALID"):
		me.Kind = helikon.ModelOther
		if keyVar != "" {
			me.Message += " (check " + keyVar + ")"
		}
	case e.Status == "INVALID_ARGUMENT" && (strings.Contains(msg, "token count") || strings.Contains(msg, "exceeds the maximum number of tokens")):
		me.Kind = helikon.ModelContextLengthExceeded
	}
	return me
}

func hasReason(e *apiError, reason string) bool {
	for _, d := range e.Details {
		if d.Reason == reason {
			return true
		}
	}
	return false
}

// retryDelay reads google.rpc.RetryInfo's retryDelay, a protobuf Duration
// in its JSON form ("34.4s").
func retryDelay(e *apiError) time.Duration {
	for _, d := range e.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || !strings.HasSuffix(d.RetryDelay, "s") {
			continue
		}
		if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
			return v
		}
	}
	return 0
}
