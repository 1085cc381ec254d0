package httphost

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// MaxHeaderBytes bounds a request's headers; net/http answers a larger
// block 431 (in the error shape behind [Listener]).
const MaxHeaderBytes = 64 << 10

// NewServer returns an http.Server for h with the hosts' bounds: 10 s to
// read a request's headers, at most [MaxHeaderBytes] of them, and 2 min
// for an idle keep-alive connection. It sets no whole-request read or
// write timeout, which would cut long event streams; bodies are bounded
// per route ([ReadBody]). base, when not nil, is the BaseContext.
func NewServer(h http.Handler, base func(net.Listener) context.Context) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Without it an idle keep-alive connection is held for ever.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: MaxHeaderBytes,
		BaseContext:    base,
	}
}

// Serve runs h on ln (behind [Listener]) with [NewServer]'s bounds until
// ctx ends; requests' contexts derive from ctx. It then shuts down, gives
// open requests grace to finish and closes what is left. It returns the
// error that stopped serving on its own, else nil, or the error of
// closing.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	srv := NewServer(h, func(net.Listener) context.Context { return ctx })
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(Listener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
