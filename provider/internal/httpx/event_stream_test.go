package httpx

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

func TestEventStream_AcceptsStreamsAndRejectsEverythingElse(t *testing.T) {
	e := Endpoint{Provider: "p", Classify: func(status int, h http.Header, body []byte) *helikon.ModelError {
		return &helikon.ModelError{Kind: helikon.ModelRateLimited, StatusCode: status, Message: "classified"}
	}}
	tests := []struct {
		name, ctype, body string
		stream            bool
		kind              helikon.ModelErrorKind
		quote             string
	}{
		{"event stream", "text/event-stream", "data: {}\n\n", true, "", ""},
		{"event stream with charset", "text/event-stream; charset=utf-8", "data: {}\n\n", true, "", ""},
		{"mislabelled stream starting with data", "text/plain", "data: {}\n\n", true, "", ""},
		{"unlabelled stream starting with event", "", "event: message_start\ndata: {}\n\n", true, "", ""},
		{"unlabelled stream starting with a comment", "", ": keep-alive\n\n", true, "", ""},
		{"stream after a byte-order mark", "", "\xef\xbb\xbfdata: {}\n\n", true, "", ""},
		{"JSON error body is the API's error", "application/json", `{"error":{"message":"bad key"}}`, false, helikon.ModelRateLimited, "classified"},
		{"error as a string is still an error body", "application/json", `{"error":"model not found"}`, false, helikon.ModelRateLimited, "classified"},
		{"whole JSON completion", "application/json", `{"id":"x","choices":[]}`, false, helikon.ModelOther, `"application/json"`},
		{"null error member is not an error body", "application/json", `{"error":null}`, false, helikon.ModelOther, `{\"error\":null}`},
		{"HTML page", "text/html", "<html><title>Sign in</title></html>", false, helikon.ModelOther, "Sign in"},
		{"empty body", "", "", false, helikon.ModelOther, "empty body"},
		{"long body is cut", "text/plain", strings.Repeat("é", 1000), false, helikon.ModelOther, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			if tt.ctype != "" {
				resp.Header.Set("Content-Type", tt.ctype)
			}
			r, me := eventStream(e, resp)
			if tt.stream {
				if me != nil {
					t.Fatalf("rejected a stream: %v", me)
				}
				if got, _ := io.ReadAll(r); string(got) != tt.body {
					t.Errorf("stream body = %q, want %q unchanged", got, tt.body)
				}
				return
			}
			if me == nil {
				t.Fatal("accepted a body that is not an event stream")
			}
			if me.Kind != tt.kind || me.StatusCode != 200 {
				t.Errorf("kind %s status %d, want %s 200", me.Kind, me.StatusCode, tt.kind)
			}
			if !strings.Contains(me.Error(), tt.quote) {
				t.Errorf("error %q does not contain %q", me.Error(), tt.quote)
			}
			if tt.kind == helikon.ModelOther && (!errors.Is(me, ErrNotEventStream) || me.Transient()) {
				t.Errorf("want a final error wrapping ErrNotEventStream, got %v", me)
			}
			if len(me.Message) > quotedPrefix+200 {
				t.Errorf("message is %d bytes long", len(me.Message))
			}
		})
	}
}

// trickle serves its bytes one Read at a time and then blocks: a stream
// whose first event is shorter than any buffer.
type trickle struct {
	parts []string
	block chan struct{}
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.parts) == 0 {
		<-t.block
		return 0, io.EOF
	}
	n := copy(p, t.parts[0])
	t.parts = t.parts[1:]
	return n, nil
}

func TestEventStream_SniffingDoesNotWaitForMoreThanAFieldName(t *testing.T) {
	src := &trickle{parts: []string{"da", "ta: {}\n\n"}, block: make(chan struct{})}
	defer close(src.block)
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(src)}
	r, me := eventStream(Endpoint{Provider: "p"}, resp)
	if me != nil {
		t.Fatal(me)
	}
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(r, buf, len("data: {}\n\n"))
	if string(buf[:n]) != "data: {}\n\n" {
		t.Errorf("read %q", buf[:n])
	}
}
