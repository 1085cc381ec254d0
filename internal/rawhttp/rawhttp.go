// Package rawhttp sends hand-written HTTP requests for tests that need
// what a client library will not send (oversized or malformed headers, a
// body that stalls after its headers) to a server the test runs on a
// loopback port:
//
//	addr := rawhttp.Serve(t, srv.Serve)
//	resp, body := rawhttp.Do(t, addr, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
package rawhttp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/httphost"
)

// Do writes req on a fresh connection to addr and returns the one
// response read back, with its whole body. The write runs beside the
// read, since a server may answer and close before it has read
// everything; its error is ignored for that reason. The exchange is
// bounded by 30 s, so a server that never answers fails the test instead
// of hanging it.
func Do(t testing.TB, addr, req string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer conn.Close()
	wg.Go(func() { _, _ = io.WriteString(conn, req) })
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response body: %v", err)
	}
	return resp, body
}

// Serve runs serve on a fresh loopback listener until the test ends, then
// cancels its context and fails the test unless serve returns nil. It
// returns the listener's address.
func Serve(t testing.TB, serve func(ctx context.Context, ln net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve after its context ended: %v", err)
		}
	})
	return ln.Addr().String()
}

// DoError is [Do] for a request the server must refuse: it decodes the
// hosts' JSON error shape, failing the test when the body is not one.
func DoError(t testing.TB, addr, req string) (*http.Response, *httphost.Error) {
	t.Helper()
	resp, data := Do(t, addr, req)
	var body httphost.ErrorBody
	if err := json.Unmarshal(data, &body); err != nil || body.Error == nil {
		t.Fatalf("%s %s: not the JSON error shape: %q", resp.Status, resp.Header.Get("Content-Type"), data)
	}
	return resp, body.Error
}

// Rejection is one request a server must refuse, and how.
type Rejection struct {
	Name, Req string
	Status    int
	Code      string
	// Allow is the Allow header the answer carries ("" for none).
	Allow string
}

// CheckRejections sends each rejection's request to addr in a subtest
// and checks the status, the error shape's code and the Allow header.
func CheckRejections(t *testing.T, addr string, rejections []Rejection) {
	t.Helper()
	for _, r := range rejections {
		t.Run(r.Name, func(t *testing.T) {
			resp, e := DoError(t, addr, r.Req)
			if resp.StatusCode != r.Status || e.Code != r.Code || resp.Header.Get("Allow") != r.Allow {
				t.Errorf("%s Allow %q %+v; want %d %s Allow %q", resp.Status, resp.Header.Get("Allow"), e, r.Status, r.Code, r.Allow)
			}
		})
	}
}
