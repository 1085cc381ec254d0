package web

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// hanging is a server that answers nothing until the request's context
// ends; it returns the server and a channel closed when the first request
// arrives.
func hanging(t *testing.T) (*httptest.Server, chan struct{}) {
	t.Helper()
	arrived := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, arrived
}

// A backend that refuses connections fails the call as a tool error the
// model can read; a caller that cancels while the backend hangs gets its
// context's error back at once, not a tool failure.
func TestSearch_DeadAndHangingBackends(t *testing.T) {
	dead, _ := NewBrave(WithAPIKey("k"), WithEndpoint("http://"+closedAddr(t)+"/search"))
	if _, err := runSearch(t, dead, `{"query":"x"}`); kindOf(err) != helikon.ToolFailed {
		t.Errorf("refused connection: err = %v, want Failed", err)
	}
	srv, arrived := hanging(t)
	b, _ := NewBrave(WithAPIKey("k"), WithEndpoint(srv.URL))
	s, err := NewSearch(b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(helikon.NewToolContext(ctx, nil, "c", "WebSearch"), []byte(`{"query":"x"}`))
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while the backend hangs: err = %v, want context.Canceled", err)
	}
}

func TestFetch_DeadAndHangingServers(t *testing.T) {
	f, err := NewFetch(WithoutSSRFGuard())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callFetch(t, f, "http://"+closedAddr(t)+"/"); kindOf(err) != helikon.ToolFailed {
		t.Errorf("refused connection: err = %v, want Failed", err)
	}
	srv, arrived := hanging(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		raw, _ := json.Marshal(FetchArgs{URL: srv.URL})
		_, err := f.Call(helikon.NewToolContext(ctx, nil, "c", "WebFetch"), raw)
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while the server hangs: err = %v, want context.Canceled", err)
	}
}
