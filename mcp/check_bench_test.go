package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/paigasus/helikon/internal/benchpair"
)

// BenchmarkCheckPost: the check every POST to the agent server now passes
// (media types, then the body as JSON and as a JSON-RPC message), paired
// with the go-sdk's own decode of the same body, which it does anyway.
func BenchmarkCheckPost(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"input":"` +
		strings.Repeat("what did I spend in January? ", 20) + `"},"_meta":{"progressToken":7}}}`)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	decode := func() {
		if _, err := jsonrpc.DecodeMessage(body); err != nil {
			b.Fatal(err)
		}
	}
	check := func() {
		msg, _, e := checkPost(r, body)
		if e != nil {
			b.Fatal(e.message)
		}
		if id, method := requestOf(msg); string(id) != "42" || method != "tools/call" {
			b.Fatalf("request %s %s", id, method)
		}
	}
	b.ReportAllocs()
	benchpair.Run(b, "gosdk-decode", decode, "check", check)
}
