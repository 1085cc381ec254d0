package agentcore_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/mock"
)

// An invocation is accepted as AWS passes it through: members the contract
// does not name are ignored, media types compare case-insensitively and
// may carry parameters, and Accept is read as a list of media types (q=0
// refuses the event stream).
func TestInvocation_PayloadsAsAWSPassesThemThrough(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		header []string
		stream bool // the answer is an event stream, else buffered JSON
	}{
		{"members of the caller's own", `{"prompt":"hi","user_id":"u-1","metadata":{"trace":["t1",{"span":2}]},"stream":false}`, nil, false},
		{"an unknown member beside messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"client":"cli/1.2"}`, nil, false},
		{"an unknown member with a null", `{"input":"hi","extra":null}`, nil, false},
		{"JSON in capitals", `{"prompt":"hi"}`, []string{"Content-Type", "APPLICATION/JSON"}, false},
		{"JSON with a charset in mixed case", `{"prompt":"hi"}`, []string{"Content-Type", "Application/Json; Charset=UTF-8"}, false},
		{"no Content-Type", `{"prompt":"hi"}`, []string{"Content-Type", ""}, false},
		{"the event stream in capitals", `{"prompt":"hi"}`, []string{"Accept", "TEXT/EVENT-STREAM"}, true},
		{"the event stream among others", `{"prompt":"hi"}`, []string{"Accept", "application/json;q=0.9, text/event-stream;q=0.5"}, true},
		{"the event stream refused with q=0", `{"prompt":"hi"}`, []string{"Accept", "application/json, text/event-stream;q=0"}, false},
		{"a media type that only contains the words", `{"prompt":"hi"}`, []string{"Accept", "application/x-text/event-stream-log"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := start(t, calc(t, mock.Text("Hello.")))
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/invocations", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tt.header); i += 2 {
				if tt.header[i+1] == "" {
					req.Header.Del(tt.header[i])
				} else {
					req.Header.Set(tt.header[i], tt.header[i+1])
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %+v", resp.StatusCode, decode[agentcore.ErrorBody](t, resp.Body).Error)
			}
			if tt.stream {
				if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
					t.Fatalf("Content-Type %q, want the event stream", ct)
				}
				var last frame
				for f := range frames(resp.Body) {
					last = f
				}
				if last.event != "run_completed" {
					t.Errorf("last event %q, want run_completed", last.event)
				}
				return
			}
			got := decode[agentcore.Response](t, resp.Body)
			if got.Status != "completed" || got.Output != "Hello." {
				t.Errorf("%+v, want the completed run", got)
			}
		})
	}
}
