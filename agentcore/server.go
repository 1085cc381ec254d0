package agentcore

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
)

// DefaultAddr is the HTTP protocol's address: every interface, port 8080.
const DefaultAddr = "0.0.0.0:8080"

// Server serves one agent on the AgentCore HTTP protocol: GET /ping and
// POST /invocations. Build it with [New]; mount [Server.Handler] or run
// [Server.ListenAndServe].
type Server struct {
	agent helikon.Agent
	cfg   config
	ping  *pinger
	mux   *http.ServeMux
}

// New returns a Server for agent. Options: [WithSessions], [WithContext],
// [WithRunner], [WithMaxBodyBytes], [WithLogger].
func New(agent helikon.Agent, opts ...Option) (*Server, error) {
	if agent == nil {
		return nil, errors.New("agentcore: nil agent")
	}
	cfg := config{maxBody: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxBody <= 0 {
		return nil, errors.New("agentcore: the body limit must be positive")
	}
	cfg.defaults()
	s := &Server{agent: agent, cfg: cfg, ping: newPinger(time.Now), mux: http.NewServeMux()}
	s.mux.Handle("GET /ping", s.ping)
	s.mux.HandleFunc("POST /invocations", s.invoke)
	return s, nil
}

// Handler returns the contract's routes as an http.Handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Busy reports HealthyBusy on /ping until release is called, for work the
// program does outside an invocation (a background task the platform must
// not reap the container during).
func (s *Server) Busy() (release func()) { return s.ping.hold() }

// ListenAndServe listens on addr ([DefaultAddr] when empty) and serves until
// ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends, then closes it: in-flight invocations
// are cancelled (their runs still record what they produced), since
// AgentCore gives a stopping container no grace period to honour.
//
// The http.Server it runs bounds reading a request's headers (10 s, 64
// KiB) and idle keep-alive connections (2 min); an invocation bounds
// reading its body (1 min, else 408). It sets no whole-request timeout,
// which would cut long event streams.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return serve(ctx, ln, s.mux)
}

// serve runs h on ln until ctx ends.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Without it an idle keep-alive connection is held for ever.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		BaseContext:    func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := srv.Shutdown(shutdown)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		<-errc
		return err
	}
}
