package agentcore_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/internal/rawhttp"
	"github.com/paigasus/helikon/mock"
)

// rawRequest sends req and decodes the JSON error shape, failing the test
// when the body is not one.
func rawRequest(t *testing.T, addr, req string) (*http.Response, agentcore.ErrorBody) {
	t.Helper()
	resp, data := rawhttp.Do(t, addr, req)
	var body agentcore.ErrorBody
	if err := json.Unmarshal(data, &body); err != nil || body.Error == nil {
		t.Fatalf("%s %s: not the JSON error shape (%v): %q", resp.Status, resp.Header.Get("Content-Type"), err, data)
	}
	return resp, body
}

// Every rejection, the router's and net/http's own included, is the JSON
// error shape. The body deadline is short here so the stalled body is
// answered quickly.
func TestServer_EveryRejectionIsTheJSONErrorShape(t *testing.T) {
	srv, err := agentcore.New(calc(t, mock.Text("unreached")), agentcore.WithBodyReadTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	addr := rawhttp.Serve(t, srv.Serve)
	tests := []struct {
		name, req string
		status    int
		code      string
		allow     string
	}{
		{"unknown route", "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found", ""},
		{"wrong method", "GET /invocations HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed", "POST"},
		{"wrong method on ping", "POST /ping HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405, "method_not_allowed", "GET, HEAD"},
		{"oversized headers", "POST /invocations HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n", 431, "header_too_large", ""},
		{"malformed request", "POST /invocations HTTP/1.1\r\n\r\n", 400, "bad_request", ""},
		{"body that stalls", "POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"prompt\":", 408, "body_timeout", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawRequest(t, addr, tt.req)
			if resp.StatusCode != tt.status || body.Error.Code != tt.code || resp.Header.Get("Allow") != tt.allow {
				t.Errorf("%s Allow %q %+v; want %d %s Allow %q", resp.Status, resp.Header.Get("Allow"), body.Error, tt.status, tt.code, tt.allow)
			}
		})
	}
}

func TestNew_RefusesANonPositiveBodyReadTimeout(t *testing.T) {
	if _, err := agentcore.New(calc(t), agentcore.WithBodyReadTimeout(0)); err == nil {
		t.Fatal("a zero body read timeout was accepted")
	}
}

func TestMCPServer_UnknownRouteIsTheJSONErrorShape(t *testing.T) {
	srv, err := agentcore.NewMCP(calc(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/invocations")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := decode[agentcore.ErrorBody](t, resp.Body)
	if resp.StatusCode != http.StatusNotFound || got.Error == nil || got.Error.Code != "not_found" {
		t.Fatalf("%s %+v", resp.Status, got.Error)
	}
}
