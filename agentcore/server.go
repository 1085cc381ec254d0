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
	// pingMethods and invokeMethods are the two routes' handlers, handler
	// the routes (s.route).
	pingMethods, invokeMethods httphost.Methods
	handler                    http.Handler
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
	s := &Server{agent: agent, cfg: cfg, ping: newPinger(time.Now)}
	s.pingMethods = httphost.Methods{http.MethodGet: s.ping.ServeHTTP, http.MethodHead: s.ping.ServeHTTP}
	s.invokeMethods = httphost.Methods{http.MethodPost: s.invoke}
	s.handler = http.HandlerFunc(s.route)
	return s, nil
}

// route serves the contract's two paths; a wrong method gets the JSON
// 405 (with Allow), every other path the JSON 404. Two exact paths need no
// http.ServeMux, whose registrations each look up their caller's file and
// line in the binary's tables: 9% of the instructions a container runs
// before its first /ping (callgrind, 2026-12-03).
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ping":
		s.pingMethods.ServeHTTP(w, r)
	case "/invocations":
		s.invokeMethods.ServeHTTP(w, r)
	default:
		httphost.NotFound(w, r)
	}
}

// Handler returns the contract's routes as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

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
	return httphost.Serve(ctx, ln, s.handler, time.Second)
}
