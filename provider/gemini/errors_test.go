package gemini_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

// The error bodies below are google.rpc.Status objects with the status
// names and codes of Google's error model (https://ai.google.dev/gemini-api/docs/troubleshooting);
// the recorded ones (RESOURCE_EXHAUSTED, INVALID_ARGUMENT) run in the
// conformance suite.
func TestErrors_MapByStatusAndMessage(t *testing.T) {
	keyInvalid, err := providertest.Load("testdata/api_key_invalid.http")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		status int
		body   string
		kind   helikon.ModelErrorKind
		retry  time.Duration
		quote  string
	}{
		{"unavailable", 503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`, helikon.ModelUnavailable, 0, "overloaded"},
		{"internal", 500, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`, helikon.ModelUnavailable, 0, "internal"},
		{"token count", 400, `{"error":{"code":400,"message":"The input token count (1300000) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}`, helikon.ModelContextLengthExceeded, 0, "token count"},
		{"permission denied names the key", 403, `{"error":{"code":403,"message":"Permission denied on resource project.","status":"PERMISSION_DENIED"}}`, helikon.ModelOther, 0, "GEMINI_API_KEY"},
		{"unauthenticated names the key", 401, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`, helikon.ModelOther, 0, "GEMINI_API_KEY"},
		{"invalid key (recorded) is a 400 naming the key", 400, string(keyInvalid.Body), helikon.ModelOther, 0, "GOOGLE_API_KEY"},
		{"quota with retry info", 429, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}]}}`, helikon.ModelRateLimited, 12 * time.Second, "quota"},
		{"vertex status inside an array", 429, `[{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}]`, helikon.ModelRateLimited, 3 * time.Second, "Resource exhausted"},
		{"quota without retry info", 429, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`, helikon.ModelRateLimited, 0, "quota"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			res := providertest.Collect(newModel(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			var me *helikon.ModelError
			if !errors.As(res.Err, &me) {
				t.Fatalf("err = %v", res.Err)
			}
			if strings.Contains(me.Message, `"error"`) {
				t.Errorf("message %q quotes the raw body, not the status's message", me.Message)
			}
			if me.Kind != tt.kind || me.RetryAfter != tt.retry || me.StatusCode != tt.status || !strings.Contains(me.Error(), tt.quote) {
				t.Errorf("got %s (retry %v, status %d): %v; want %s (retry %v) quoting %q", me.Kind, me.RetryAfter, me.StatusCode, me, tt.kind, tt.retry, tt.quote)
			}
		})
	}
}

func TestErrors_VertexAuthFailureNamesProjectAndModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(403)
		_, _ = w.Write([]byte(`{"error":{"code":403,"message":"Permission denied.","status":"PERMISSION_DENIED"}}`))
	}))
	defer srv.Close()
	m, err := gemini.Vertex("gemini-2.5-flash", "proj-7", gemini.WithBaseURL(srv.URL), gemini.WithBearerToken("t"))
	if err != nil {
		t.Fatal(err)
	}
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
	if res.Err == nil || !strings.Contains(res.Err.Error(), "proj-7") || !strings.Contains(res.Err.Error(), "gemini-2.5-flash") {
		t.Errorf("err = %v, want it to name the project and model", res.Err)
	}
}
