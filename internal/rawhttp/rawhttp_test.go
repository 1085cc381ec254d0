package rawhttp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/rawhttp"
)

func TestDo_ReturnsTheResponseAndItsBody(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(r.Header.Get("X-Echo")))
	}))
	defer ts.Close()
	resp, body := rawhttp.Do(t, strings.TrimPrefix(ts.URL, "http://"), "GET / HTTP/1.1\r\nHost: x\r\nX-Echo: hi\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != http.StatusTeapot || string(body) != "hi" {
		t.Fatalf("%s %q", resp.Status, body)
	}
}

func TestServe_StopsTheServerWhenTheTestEnds(t *testing.T) {
	stopped := make(chan struct{})
	t.Run("inner", func(t *testing.T) {
		addr := rawhttp.Serve(t, func(ctx context.Context, ln net.Listener) error {
			defer close(stopped)
			defer ln.Close()
			<-ctx.Done()
			return nil
		})
		if addr == "" {
			t.Fatal("no address")
		}
	})
	select {
	case <-stopped:
	default:
		t.Fatal("serve still running after its test ended")
	}
}
