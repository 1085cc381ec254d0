package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/rawhttp"
	"github.com/paigasus/helikon/server"
)

// What net/http refuses before any handler runs reaches the client in the
// server's JSON error shape too.
func TestServeListener_NetHTTPRejectionsAreTheJSONErrorShape(t *testing.T) {
	s, err := server.New([]helikon.Agent{newAgent(t, "greeter", 0)})
	if err != nil {
		t.Fatal(err)
	}
	addr := rawhttp.Serve(t, s.ServeListener)
	tests := []struct {
		name, req string
		status    int
		code      string
	}{
		{"oversized headers", "GET /agents HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n", 431, server.CodeHeaderTooLarge},
		{"no Host header", "GET /agents HTTP/1.1\r\n\r\n", 400, server.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := rawhttp.Do(t, addr, tt.req)
			var body server.ErrorBody
			if err := json.Unmarshal(data, &body); err != nil || body.Error == nil {
				t.Fatalf("%s: not the JSON error shape: %q", resp.Status, data)
			}
			if resp.StatusCode != tt.status || body.Error.Code != tt.code {
				t.Errorf("%s %+v; want %d %s", resp.Status, body.Error, tt.status, tt.code)
			}
		})
	}
}
