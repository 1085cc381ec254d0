package httpx

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/paigasus/helikon"
)

func TestRetryAfter_ReadsEveryHintShape(t *testing.T) {
	now := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"retry-after-ms wins", map[string]string{"Retry-After-Ms": "1500", "Retry-After": "9"}, 1500 * time.Millisecond},
		{"fractional milliseconds", map[string]string{"retry-after-ms": "0.5"}, 500 * time.Microsecond},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.25"}, 1250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"bad ms falls back to seconds", map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
		{"absent", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tt.want {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatusKind_MapsStatusFamilies(t *testing.T) {
	tests := map[int]helikon.ModelErrorKind{
		429: helikon.ModelRateLimited, 500: helikon.ModelUnavailable, 502: helikon.ModelUnavailable,
		503: helikon.ModelUnavailable, 529: helikon.ModelUnavailable, 408: helikon.ModelTransport,
		400: helikon.ModelOther, 401: helikon.ModelOther, 404: helikon.ModelOther,
	}
	for status, want := range tests {
		if got := StatusKind(status); got != want {
			t.Errorf("StatusKind(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestBaseURL_AcceptsHTTPRootsOnly(t *testing.T) {
	tests := []struct {
		raw, want string
		ok        bool
	}{
		{"https://api.openai.com/v1", "https://api.openai.com/v1", true},
		{"http://localhost:11434/v1/", "http://localhost:11434/v1", true},
		{"localhost:11434/v1", "", false}, // parses with scheme "localhost"
		{"api.openai.com/v1", "", false},  // a relative path
		{"ftp://example.com", "", false},
		{"https://", "", false},
		{"http://[::1", "", false},
	}
	for _, tt := range tests {
		got, err := BaseURL(tt.raw)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q, ok=%v", tt.raw, got, err, tt.want, tt.ok)
		}
	}
}

// A root with a query or a fragment would put the API's path into it and
// send the request to another resource; the constructor refuses it.
func TestBaseURL_RefusesAQueryOrAFragment(t *testing.T) {
	for _, raw := range []string{
		"https://proxy.example/v1?route=openai",
		"https://proxy.example/v1?",
		"https://proxy.example/v1#x",
		"https://proxy.example/v1/#",
		"http://localhost:8080?x=1/v1",
	} {
		if got, err := BaseURL(raw); !errors.Is(err, ErrBaseURLQuery) {
			t.Errorf("BaseURL(%q) = %q, %v; want ErrBaseURLQuery", raw, got, err)
		}
	}
}
