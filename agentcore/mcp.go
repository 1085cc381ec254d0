package agentcore

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/httphost"
	"github.com/paigasus/helikon/mcp"
)

// DefaultMCPAddr is the MCP protocol's address: every interface, port 8000.
const DefaultMCPAddr = "0.0.0.0:8000"

// MCPServer serves one agent on the AgentCore MCP protocol: the agent as a
// single MCP tool (see package mcp), over stateless streamable HTTP at /mcp,
// accepting the Mcp-Session-Id the platform generates.
//
// The platform's Mcp-Session-Id names the conversation: it goes through the
// [SessionProvider] like the HTTP protocol's session header, and each call
// runs through the runner, which loads that session and records the run.
// So a persistent session backend works in MCP mode too — the seed's v0
// gave every MCP call a fresh in-memory session. A call without the header
// (a client talking to the container directly) gets a fresh session.
type MCPServer struct {
	mux *http.ServeMux
}

// NewMCP returns an MCPServer for agent. It takes [WithSessions],
// [WithContext] (called with a nil request), [WithRunner] and [WithLogger];
// mcpOpts configure the MCP tool ([mcp.WithRunConfig],
// [mcp.WithInstructions], [mcp.WithMaxInputBytes], …).
func NewMCP(agent helikon.Agent, opts []Option, mcpOpts ...mcp.ServerOption) (*MCPServer, error) {
	if agent == nil {
		return nil, errors.New("agentcore: nil agent")
	}
	cfg := config{maxBody: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.defaults()
	sessionContext := func(ctx context.Context, id string) (*helikon.RunContext, error) {
		session, err := cfg.sessions.Session(ctx, id)
		if err != nil {
			return nil, err
		}
		return cfg.context(nil, session)
	}
	all := append([]mcp.ServerOption{
		mcp.WithStateless(),
		mcp.WithSessionContext(sessionContext),
		mcp.WithRunner(cfg.runner),
		mcp.WithLogger(cfg.logger),
	}, mcpOpts...)
	as, err := mcp.NewAgentServer(agent, all...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", as)
	mux.HandleFunc("/", httphost.NotFound)
	return &MCPServer{mux: mux}, nil
}

// Handler returns the contract's route, /mcp, as an http.Handler.
func (s *MCPServer) Handler() http.Handler { return s.mux }

// ListenAndServe listens on addr ([DefaultMCPAddr] when empty) and serves
// until ctx ends.
func (s *MCPServer) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultMCPAddr
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return httphost.Serve(ctx, ln, s.mux, time.Second)
}
