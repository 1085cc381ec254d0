package server_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// TestLoad_ThousandClientsDropMidStream: 1,000 SSE clients each read the
// first frame of their run and hang up. Every run ends cancelled, and the
// goroutine count returns to where it was.
func TestLoad_ThousandClientsDropMidStream(t *testing.T) {
	const clients = 1000
	log := newSpyLog(clients)
	// Each run would stream for a minute: every client hangs up
	// mid-stream however loaded the machine (the hang-ups end the test in
	// seconds).
	srv, err := server.New([]helikon.Agent{newAgent(t, "slow", time.Second, strings.Split(strings.Repeat("x ", 60), " ")[:60]...)},
		server.WithEventLog(log))
	if err != nil {
		t.Fatal(err)
	}
	ts := startOn(t, srv)
	// Each client its own connection, so hanging up closes it.
	transport := &http.Transport{DisableKeepAlives: true, MaxConnsPerHost: 0}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	runtime.GC()
	baseline := runtime.NumGoroutine()

	var wg sync.WaitGroup
	errs := make(chan error, clients)
	sem := make(chan struct{}, 200) // bound the dialling burst, not the concurrency
	for range clients {
		wg.Go(func() {
			sem <- struct{}{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts+"/agents/slow/runs?stream=sse", strings.NewReader(`{"input":"hi"}`))
			resp, err := client.Do(req)
			<-sem
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 1)
			if _, err := io.ReadFull(resp.Body, buf); err != nil {
				errs <- err
			}
			// Hang up mid-stream.
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ids := make([]string, 0, clients)
	for range clients {
		ids = append(ids, <-log.created)
	}
	waitFor(t, "every dropped run to end", func() bool {
		for _, id := range ids {
			if info, err := log.Info(context.Background(), id); err != nil || !info.Status.Final() {
				return false
			}
		}
		return true
	})
	cancelled := 0
	for _, id := range ids {
		info, _ := log.Info(context.Background(), id)
		if info.Status == server.StatusCancelled {
			cancelled++
		} else {
			t.Errorf("dropped run %s ended %s: %+v", id, info.Status, info.Error)
		}
	}
	if cancelled != clients {
		t.Fatalf("%d of %d dropped runs were cancelled", cancelled, clients)
	}
	transport.CloseIdleConnections()
	waitFor(t, "the goroutines to return to baseline", func() bool {
		return runtime.NumGoroutine() <= baseline
	})
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
