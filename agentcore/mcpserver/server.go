// Package mcpserver serves an agent on AWS Bedrock AgentCore Runtime's MCP
// protocol contract: the agent as a single MCP tool (see package mcp), over
// stateless streamable HTTP at /mcp on 0.0.0.0:8000, accepting the
// Mcp-Session-Id header the platform generates. It takes package
// agentcore's options.
//
//	srv, err := mcpserver.New(agent, []agentcore.Option{agentcore.WithSessions(sessions)})
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(srv.ListenAndServe(ctx, "")) // 0.0.0.0:8000
//
// It is a package of its own so that a program serving the HTTP protocol
// (package agentcore) does not link the MCP SDK: 1.6 MB of a stripped
// linux/amd64 binary, and its package initialisation (encoding/gob among
// it) on every container start.
//
// A JSON-RPC message it refuses is answered with a JSON-RPC error (-32700
// not JSON, -32600 not a message, -32601 an unknown method), as package
// mcp answers it.
package mcpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/agentcore/internal/settings"
	"github.com/paigasus/helikon/internal/httphost"
	"github.com/paigasus/helikon/mcp"
)

// DefaultAddr is the MCP protocol's address: every interface, port 8000.
const DefaultAddr = "0.0.0.0:8000"

// Server serves one agent on the AgentCore MCP protocol: the agent as a
// single MCP tool (see package mcp), over stateless streamable HTTP at /mcp,
// accepting the Mcp-Session-Id the platform generates.
//
// The platform's Mcp-Session-Id names the conversation: it goes through the
// [SessionProvider] like the HTTP protocol's session header, and each call
// runs through the runner, which loads that session and records the run.
// So a persistent session backend works in MCP mode too — the seed's v0
// gave every MCP call a fresh in-memory session. A call without the header
// (a client talking to the container directly) gets a fresh session.
type Server struct {
	mux *http.ServeMux
}

// New returns a Server for agent. It takes [agentcore.WithSessions],
// [agentcore.WithContext] (called with a nil request),
// [agentcore.WithRunner] and [agentcore.WithLogger];
// mcpOpts configure the MCP tool ([mcp.WithRunConfig],
// [mcp.WithInstructions], [mcp.WithMaxInputBytes], …).
func New(agent helikon.Agent, opts []agentcore.Option, mcpOpts ...mcp.ServerOption) (*Server, error) {
	if agent == nil {
		return nil, errors.New("mcpserver: nil agent")
	}
	cfg := settings.Config{MaxBody: agentcore.DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.Defaults()
	sessionContext := func(ctx context.Context, id string) (*helikon.RunContext, error) {
		session, err := cfg.Sessions.Session(ctx, id)
		if err != nil {
			return nil, err
		}
		return cfg.Context(nil, session)
	}
	all := append([]mcp.ServerOption{
		mcp.WithStateless(),
		mcp.WithSessionContext(sessionContext),
		mcp.WithRunner(cfg.Runner),
		mcp.WithLogger(cfg.Logger),
	}, mcpOpts...)
	as, err := mcp.NewAgentServer(agent, all...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", as)
	mux.HandleFunc("/", httphost.NotFound)
	return &Server{mux: mux}, nil
}

// Handler returns the contract's route, /mcp, as an http.Handler.
func (s *Server) Handler() http.Handler { return s.mux }

// ListenAndServe listens on addr ([DefaultAddr] when empty) and serves
// until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return httphost.Serve(ctx, ln, s.mux, time.Second)
}
