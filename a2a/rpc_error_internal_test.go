package a2a

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// TestWriteRPCError_AnyMessageIsValidJSON pins the error body's encoding:
// with Go's %q a DEL or an invalid UTF-8 byte in the message made a body
// no JSON-RPC client could read.
func TestWriteRPCError_AnyMessageIsValidJSON(t *testing.T) {
	for _, msg := range []string{"plain", "del \x7f", "bad utf-8 \xff", "quote \" and \\ and \n"} {
		w := httptest.NewRecorder()
		writeRPCError(w, -32700, msg)
		var out struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Error.Code != -32700 {
			t.Errorf("message %q: body %s is not a JSON-RPC error: %v", msg, w.Body.Bytes(), err)
		}
	}
}
