package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
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
// The http.Server it runs bounds reading a request's headers (10 s) and
// idle keep-alive connections (2 min); the run route bounds reading its
// body (1 min). It sets no whole-request read or write timeout, which
// would cut long streams.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return s.connCtx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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
