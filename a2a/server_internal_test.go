package a2a

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
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

// TestChunks_InvalidUTF8EndsAndKeepsEveryByte pins chunks on text whose
// bytes past a chunk's end start no character: it found no place to cut,
// yielded an empty chunk and started again where it was, for ever.
func TestChunks_InvalidUTF8EndsAndKeepsEveryByte(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("\x80", 3*chunkBytes+5),
		"a" + strings.Repeat("é", chunkBytes),
		strings.Repeat("x", chunkBytes) + "\xff\xfe",
	} {
		var got strings.Builder
		n := 0
		for c := range chunks(text) {
			if n++; n > 2*len(text)/chunkBytes+2 || c == "" || len(c) > chunkBytes {
				t.Fatalf("chunk %d of %d bytes out of %d: chunks does not move forward", n, len(c), len(text))
			}
			got.WriteString(c)
		}
		if got.String() != text {
			t.Fatalf("the chunks of %d bytes join to %d", len(text), got.Len())
		}
	}
}
