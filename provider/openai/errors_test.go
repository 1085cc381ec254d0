package openai

import (
	"net/http"
	"testing"
	"time"

	"github.com/paigasus/helikon"
)

// Error bodies beyond the recorded fixtures: the code and message shapes the
// API and compatible servers use for each kind.
func TestClassifyHTTP_MapsEachErrorShape(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   helikon.ModelErrorKind
		retry  bool
	}{
		{"429 with retry-after seconds", 429, map[string]string{"Retry-After": "3"}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, helikon.ModelRateLimited, true},
		{"429 with retry-after date", 429, map[string]string{"Retry-After": date}, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, helikon.ModelRateLimited, true},
		{"billing hard limit", 400, nil, `{"error":{"message":"Billing hard limit has been reached","type":"invalid_request_error","code":"billing_hard_limit_reached"}}`, helikon.ModelOther, false},
		{"quota named only in the message", 429, nil, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"requests"}}`, helikon.ModelOther, false},
		{"context window in the message only", 400, nil, `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":null}}`, helikon.ModelContextLengthExceeded, false},
		{"503 without a body", 503, nil, ``, helikon.ModelUnavailable, false},
		{"numeric code from a compatible server", 500, nil, `{"error":{"message":"oops","code":500}}`, helikon.ModelUnavailable, false},
		{"401 is not retryable", 401, nil, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, helikon.ModelOther, false},
		{"html from a proxy keeps its text", 502, nil, `<html>Bad Gateway</html>`, helikon.ModelUnavailable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			me := classifyHTTP(tt.status, h, []byte(tt.body))
			if me.Kind != tt.kind || me.StatusCode != tt.status || me.Provider != "openai" {
				t.Errorf("got %v, want kind %s", me, tt.kind)
			}
			if (me.RetryAfter > 0) != tt.retry {
				t.Errorf("retry after = %v", me.RetryAfter)
			}
			if tt.body != "" && me.Message == "" {
				t.Error("message lost")
			}
		})
	}
}
