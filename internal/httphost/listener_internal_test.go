package httphost

import (
	"bytes"
	"net"
	"testing"

	"github.com/paigasus/helikon/internal/benchpair"
)

// nopConn is a net.Conn whose writes go nowhere.
type nopConn struct{ net.Conn }

func (nopConn) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkListenerWrite is the conn wrapper's cost on an ordinary
// response write (a 4 KiB chunk starting with a status line, the worst
// case for the check), paired with the bare connection.
func BenchmarkListenerWrite(b *testing.B) {
	p := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Tue, 01 Dec 2026 11:00:00 GMT\r\n\r\n"), make([]byte, 4<<10)...)
	p = p[:4<<10]
	bare := nopConn{}
	wrapped := conn{nopConn{}}
	b.ReportAllocs()
	benchpair.Run(b, "bare", func() { _, _ = bare.Write(p) }, "wrapped", func() { _, _ = wrapped.Write(p) })
}

// FuzzRewriteRejection checks every write the wrapper sees, a handler's
// body included: it never panics, and it rewrites only a write that has
// exactly net/http's rejection headers after its status line, into a
// response with the same status line and a JSON error body.
func FuzzRewriteRejection(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 431 Request Header Fields Too Large" + rejectionHeaders + "431 Request Header Fields Too Large",
		"HTTP/1.1 400 Bad Request: missing required Host header" + rejectionHeaders + "400 Bad Request: missing required Host header",
		"HTTP/1.1 501 Not Implemented" + rejectionHeaders + "Unsupported transfer encoding",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nbody",
		"HTTP/1.1 431 x\r\nDate: now" + rejectionHeaders + "x",
		"HTTP/1.1 4" + rejectionHeaders,
		"HTTP/1.1 " + rejectionHeaders,
		"{\"json\":1}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		out, ok := rewriteRejection(p)
		if !ok {
			return
		}
		eol := bytes.IndexByte(p, '\r')
		if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) || !bytes.HasPrefix(p[eol:], []byte(rejectionHeaders)) {
			t.Fatalf("rewrote %q", p)
		}
		if !bytes.HasPrefix(out, p[:eol+2]) || !bytes.Contains(out, []byte("Content-Type: application/json\r\n")) {
			t.Fatalf("rewrote %q into %q", p, out)
		}
	})
}
