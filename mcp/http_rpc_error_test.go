package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paigasus/helikon/mcp"
)

// httpRPCCase is one raw request to an MCP HTTP endpoint and the JSON-RPC
// error it must get.
type httpRPCCase struct {
	name   string
	method string            // default POST
	header map[string]string // over the defaults of a valid POST
	body   string
	status int
	code   int64  // the JSON-RPC error code; 0: a success
	id     string // the error's id, as written
	text   string // in the error's message
}

// initializeBody is a valid initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// checkHTTPRPCErrors sends each case to url and holds the answer to it: a
// JSON-RPC error response as application/json, never the go-sdk's plain
// text.
func checkHTTPRPCErrors(t *testing.T, url string, cases []httpRPCCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			req, err := http.NewRequest(method, url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d; body %.300s", resp.StatusCode, tc.status, body)
			}
			if tc.code == 0 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json; body %.300s", ct, body)
			}
			var got struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body is not JSON: %v\n%.300s", err, body)
			}
			if got.JSONRPC != "2.0" || got.Error == nil || got.Error.Code != tc.code || string(got.ID) != tc.id ||
				!strings.Contains(got.Error.Message, tc.text) {
				t.Errorf("body %.300s, want error %d, id %s, with %q", body, tc.code, tc.id, tc.text)
			}
		})
	}
}

// The go-sdk's handler refuses bad requests in plain text; the agent
// server answers every such refusal as a JSON-RPC error response with the
// code stdio uses, the status the HTTP transport calls for, and
// application/json — stateful and stateless alike.
func TestAgentServer_HTTPRefusalsAreJSONRPCErrors(t *testing.T) {
	common := []httpRPCCase{
		{name: "body that is not JSON", body: `{"jsonrpc":"2.0","id":1,`, status: 400, code: -32700, id: "null", text: "parse error"},
		{name: "empty body", body: ``, status: 400, code: -32700, id: "null", text: "empty message"},
		{name: "two JSON values", body: initializeBody + initializeBody, status: 400, code: -32700, id: "null", text: "after top-level value"},
		{name: "JSON that is no message", body: `{"id":5,"method":"ping"}`, status: 400, code: -32600, id: "5", text: "version"},
		{name: "a bare string", body: `"ping"`, status: 400, code: -32600, id: "null", text: "JSON object"},
		{name: "an empty batch", body: `[]`, status: 400, code: -32600, id: "null", text: "empty batch"},
		{name: "an unknown method", body: `{"jsonrpc":"2.0","id":"u-6","method":"no/such/method","params":{}}`, status: 400, code: -32601, id: `"u-6"`, text: `"no/such/method"`},
		{name: "an unknown notification", body: `{"jsonrpc":"2.0","method":"notifications/no/such"}`, status: 400, code: -32601, id: "null", text: `"notifications/no/such"`},
		{name: "a call without params", body: `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, status: 400, code: -32600, id: "7", text: "params"},
		{name: "Accept without the event stream", header: map[string]string{"Accept": "application/json"}, body: initializeBody, status: 406, code: -32600, id: "null", text: "Accept"},
		{name: "no Accept", header: map[string]string{"Accept": ""}, body: initializeBody, status: 406, code: -32600, id: "null", text: "Accept"},
		{name: "a text body", header: map[string]string{"Content-Type": "text/plain"}, body: initializeBody, status: 415, code: -32600, id: "null", text: "Content-Type"},
		{name: "an unsupported protocol version header", header: map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, body: `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, status: 400, code: -32600, id: "8", text: "protocol version"},
		{name: "media types in capitals", header: map[string]string{"Content-Type": "APPLICATION/JSON; Charset=UTF-8", "Accept": "Application/JSON, TEXT/EVENT-STREAM"}, body: initializeBody, status: 200},
	}
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			var opts []mcp.ServerOption
			cases := common
			if stateless {
				opts = append(opts, mcp.WithStateless())
			} else {
				cases = append(cases,
					httpRPCCase{name: "GET without a session", method: http.MethodGet, header: map[string]string{"Accept": "text/event-stream"}, status: 400, code: -32600, id: "null", text: "Mcp-Session-Id"},
					httpRPCCase{name: "DELETE of an unknown session", method: http.MethodDelete, header: map[string]string{"Mcp-Session-Id": "nope"}, status: 404, code: -32600, id: "null", text: "session not found"})
			}
			s, err := mcp.NewAgentServer(echoAgent{name: "echo"}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(s)
			defer ts.Close()
			checkHTTPRPCErrors(t, ts.URL, cases)
		})
	}
}
