package agentcore

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore/internal/settings"
	"github.com/paigasus/helikon/internal/httphost"
)

// DefaultAddr is the HTTP protocol's address: every interface, port 8080.
const DefaultAddr = "0.0.0.0:8080"

// Server serves one agent on the AgentCore HTTP protocol: GET /ping and
// POST /invocations. Build it with [New]; mount [Server.Handler] or run
// [Server.ListenAndServe].
type Server struct {
	agent helikon.Agent
	cfg   settings.Config
	ping  *pinger
	mux   *http.ServeMux
}

// New returns a Server for agent. Options: [WithSessions], [WithContext],
// [WithRunner], [WithMaxBodyBytes], [WithBodyReadTimeout], [WithLogger].
func New(agent helikon.Agent, opts ...Option) (*Server, error) {
	if agent == nil {
		return nil, errors.New("agentcore: nil agent")
	}
	cfg := settings.Config{MaxBody: DefaultMaxBodyBytes, BodyTimeout: DefaultBodyReadTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.MaxBody <= 0 {
		return nil, errors.New("agentcore: the body limit must be positive")
	}
	if cfg.BodyTimeout <= 0 {
		return nil, errors.New("agentcore: the body read timeout must be positive")
	}
	cfg.Defaults()
	s := &Server{agent: agent, cfg: cfg, ping: newPinger(time.Now), mux: http.NewServeMux()}
	// Patterns carry no method, so that a wrong method gets the JSON 405
	// (with Allow), and "/" answers every other path with the JSON 404.
	s.mux.Handle("/ping", httphost.Methods{http.MethodGet: s.ping.ServeHTTP, http.MethodHead: s.ping.ServeHTTP})
	s.mux.Handle("/invocations", httphost.Methods{http.MethodPost: s.invoke})
	s.mux.HandleFunc("/", httphost.NotFound)
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
// KiB, else 431) and idle keep-alive connections (2 min); an invocation
// bounds reading its body ([WithBodyReadTimeout], else 408). It sets no
// whole-request timeout, which would cut long event streams. Every
// rejection, including those net/http makes before any handler runs
// (oversized headers, a malformed request), is answered in the JSON
// [ErrorBody] shape.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return httphost.Serve(ctx, ln, s.mux, time.Second)
}
