package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheckMessage feeds checkMessage what a client chooses to send. What
// it passes, the go-sdk decodes (one JSON value: one message, or a batch of
// them); what it refuses gets -32700 exactly when it is not JSON, and a
// reply that is itself a JSON-RPC error response with an id member, which
// the go-sdk reads back whenever it is not null.
func FuzzCheckMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`{"jsonrpc":"1.0","id":-3,"method":"ping"}`,
		`{"id":1e400}`, `{"id":1.5}`, `{"id":"\u0000"}`, `[]`, `[1]`, `null`, `"x"`, `{`, `{}{}`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimSpace(data)
		msg, e := checkMessage(data)
		if e == nil {
			if (msg == nil) != (data[0] == '[') {
				t.Fatalf("passed %q with message %v", data, msg)
			}
			if !json.Valid(data) {
				t.Fatalf("passed %q, which is not JSON", data)
			}
			if data[0] == '[' {
				var batch []json.RawMessage
				if json.Unmarshal(data, &batch) != nil || len(batch) == 0 {
					t.Fatalf("passed %q, not a non-empty batch", data)
				}
				for _, m := range batch {
					if _, err := jsonrpc.DecodeMessage(m); err != nil {
						t.Fatalf("passed batch %q whose member the go-sdk refuses: %v", data, err)
					}
				}
				return
			}
			if _, err := jsonrpc.DecodeMessage(data); err != nil {
				t.Fatalf("passed %q, which the go-sdk refuses: %v", data, err)
			}
			return
		}
		if (e.code == jsonrpc.CodeParseError) == json.Valid(data) {
			t.Fatalf("%q answered %d", data, e.code)
		}
		var reply map[string]json.RawMessage
		if err := json.Unmarshal(e.encode(), &reply); err != nil || string(reply["jsonrpc"]) != `"2.0"` || reply["id"] == nil || reply["error"] == nil {
			t.Fatalf("reply %s is not a JSON-RPC error response (%v)", e.encode(), err)
		}
		// An echoed id must read back; the go-sdk refuses every reply with
		// id null, which JSON-RPC prescribes when the id is unknown.
		if string(reply["id"]) != "null" {
			if _, err := jsonrpc.DecodeMessage(e.encode()); err != nil {
				t.Fatalf("reply %s does not decode: %v", e.encode(), err)
			}
		}
	})
}
