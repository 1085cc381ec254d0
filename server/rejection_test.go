package server_test

import (
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
	rawhttp.CheckRejections(t, addr, []rawhttp.Rejection{
		{Name: "oversized headers", Req: "GET /agents HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n", Status: 431, Code: server.CodeHeaderTooLarge},
		{Name: "no Host header", Req: "GET /agents HTTP/1.1\r\n\r\n", Status: 400, Code: server.CodeBadRequest},
	})
}
