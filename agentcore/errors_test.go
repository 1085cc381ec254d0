package agentcore_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/internal/rawhttp"
	"github.com/paigasus/helikon/mock"
)

// Every rejection, the router's and net/http's own included, is the JSON
// error shape. The body deadline is short here so the stalled body is
// answered quickly.
func TestServer_EveryRejectionIsTheJSONErrorShape(t *testing.T) {
	srv, err := agentcore.New(calc(t, mock.Text("unreached")), agentcore.WithBodyReadTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	addr := rawhttp.Serve(t, srv.Serve)
	rawhttp.CheckRejections(t, addr, []rawhttp.Rejection{
		{Name: "unknown route", Req: "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", Status: 404, Code: "not_found"},
		{Name: "wrong method", Req: "GET /invocations HTTP/1.1\r\nHost: x\r\n\r\n", Status: 405, Code: "method_not_allowed", Allow: "POST"},
		{Name: "wrong method on ping", Req: "POST /ping HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", Status: 405, Code: "method_not_allowed", Allow: "GET, HEAD"},
		{Name: "oversized headers", Req: "POST /invocations HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n", Status: 431, Code: "header_too_large"},
		{Name: "malformed request", Req: "POST /invocations HTTP/1.1\r\n\r\n", Status: 400, Code: "bad_request"},
		{Name: "body that stalls", Req: "POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"prompt\":", Status: 408, Code: "body_timeout"},
	})
}

func TestNew_RefusesANonPositiveBodyReadTimeout(t *testing.T) {
	if _, err := agentcore.New(calc(t), agentcore.WithBodyReadTimeout(0)); err == nil {
		t.Fatal("a zero body read timeout was accepted")
	}
}

func TestInvocation_DeadBackendsAreTypedRejections(t *testing.T) {
	down := errors.New("connection refused")
	tests := []struct {
		name   string
		opts   []agentcore.Option
		status int
		code   string
		text   string
	}{
		{"session store down", []agentcore.Option{agentcore.WithSessions(agentcore.SessionFunc(
			func(context.Context, string) (helikon.Session, error) { return nil, down }))},
			503, "unavailable", "connection refused"},
		{"context refused", []agentcore.Option{agentcore.WithContext(
			func(*http.Request, helikon.Session) (*helikon.RunContext, error) { return nil, errors.New("no tenant") })},
			403, "forbidden", "no tenant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := mock.New(nil)
			agent, err := helikon.NewAgent("a", model)
			if err != nil {
				t.Fatal(err)
			}
			ts := start(t, agent, tt.opts...)
			resp := invoke(t, ts.URL, `{"prompt":"hi"}`)
			got := decode[agentcore.ErrorBody](t, resp.Body)
			if resp.StatusCode != tt.status || got.Error.Code != tt.code || !strings.Contains(got.Error.Message, tt.text) {
				t.Errorf("%d %+v; want %d %s with %q", resp.StatusCode, got.Error, tt.status, tt.code, tt.text)
			}
			if n := len(model.Requests()); n != 0 {
				t.Errorf("the model was called %d times", n)
			}
		})
	}
}
