package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/paigasus/helikon/internal/httphost"
)

// Serve listens on addr and serves until ctx is cancelled; see
// [Server.ServeListener].
func (s *Server) Serve(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return s.ServeListener(ctx, ln)
}

// ServeListener serves on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting at once, lets running runs (and the
// one-shot and SSE responses waiting on them) finish for the grace period
// ([WithGracePeriod]), then cancels the rest, waits for their last events
// to reach the log and closes every connection. It returns nil after a
// shutdown that ctx asked for.
//
// The http.Server it runs bounds reading a request's headers (10 s, 64
// KiB, else 431) and idle keep-alive connections (2 min); the routes that
// take a body bound reading it (1 min, else 408). It sets no
// whole-request read or write timeout, which would cut long streams.
// Every rejection, net/http's own included, is an [ErrorBody].
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	hs := httphost.NewServer(s.Handler(), func(net.Listener) context.Context { return s.connCtx })
	errc := make(chan error, 1)
	// The listener turns net/http's own plain-text rejections (431, 400)
	// into the JSON error shape.
	go func() { errc <- hs.Serve(httphost.Listener(ln)) }()
	select {
	case err := <-errc:
		_ = s.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	graceCtx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	httpDone := make(chan struct{})
	go func() {
		defer close(httpDone)
		_ = hs.Shutdown(graceCtx)
	}()
	_ = s.Shutdown(graceCtx)
	// Every run has ended and every stream was told to stop: the
	// handlers return promptly now.
	select {
	case <-httpDone:
	case <-time.After(5 * time.Second):
	}
	_ = hs.Close()
	<-httpDone
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
