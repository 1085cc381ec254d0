package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/httphost"
	"github.com/paigasus/helikon/runner"
)

// AgentServer serves one [helikon.Agent] as a single MCP tool. The tool is
// named after the agent (sanitised to [a-zA-Z0-9_-]), described by the
// agent's description, takes {"input": string}, and answers with the run's
// final text. Build it with [NewAgentServer]; serve it with
// [AgentServer.ServeStdio], [AgentServer.ListenAndServe] (streamable HTTP at
// /mcp), as an http.Handler, or over any go-sdk transport with
// [AgentServer.ServeTransport].
//
// Every call runs the agent on a fresh [helikon.RunContext] from the context
// factory. The call's context is the run's: a client that disconnects or
// sends notifications/cancelled cancels the run. The [helikon.RunConfig]'s
// Timeout is enforced here; a run that outlasts it ends with an error
// result. When the client sends a progress token, the server reports the
// run's turns and tool calls as progress notifications.
type AgentServer struct {
	agent    helikon.Agent
	cfg      serverConfig
	toolName string
	server   *sdk.Server
	http     http.Handler
	logger   *slog.Logger
	// methods holds the HTTP methods the transport serves.
	methods httphost.Methods

	// posts maps a POST's id (the requestIDHeader ServeHTTP sets) to its
	// request context, so that a call learns when its HTTP client went away:
	// the go-sdk ties a call to the HTTP request only from protocol
	// 2026-07-28 on.
	posts  sync.Map // string → context.Context
	postID atomic.Uint64
}

// requestIDHeader carries a POST's id from ServeHTTP to the call handler.
// ServeHTTP always overwrites it, so a client cannot choose it.
const requestIDHeader = "X-Helikon-Mcp-Post"

// errClientGone ends a run whose HTTP client disconnected.
var errClientGone = errors.New("mcp client disconnected")

// agentInput is the tool's arguments.
type agentInput struct {
	Input *string `json:"input"`
}

// NewAgentServer wraps agent. Options: [WithImplementation] (default: the
// tool name and the helikon module version the program was built with, from
// its build info; "(devel)" for a build from a working tree, with the VCS
// revision when go build stamped one), [WithInstructions], [WithContextFactory] or
// [WithSessionContext], [WithRunner], [WithStateless], [WithRunConfig],
// [WithMaxInputBytes], [WithBodyReadTimeout], [WithLogger].
func NewAgentServer(agent helikon.Agent, opts ...ServerOption) (*AgentServer, error) {
	if agent == nil {
		return nil, newError(KindOther, "", errors.New("nil agent"))
	}
	cfg := serverConfig{newContext: helikon.Ephemeral, maxInputBytes: DefaultMaxInputBytes, bodyTimeout: DefaultBodyReadTimeout}
	for _, o := range opts {
		o.applyServer(&cfg)
	}
	if cfg.newContext == nil {
		return nil, newError(KindOther, agent.Name(), errors.New("nil context factory"))
	}
	if cfg.bodyTimeout <= 0 {
		return nil, newError(KindOther, agent.Name(), errors.New("the body read timeout must be positive"))
	}
	s := &AgentServer{agent: agent, cfg: cfg, toolName: SanitizeToolName(agent.Name()), logger: cfg.logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.cfg.impl.name == "" {
		s.cfg.impl = implementation{s.toolName, moduleVersion()}
	}
	s.server = sdk.NewServer(&sdk.Implementation{Name: s.cfg.impl.name, Version: s.cfg.impl.version},
		&sdk.ServerOptions{Instructions: cfg.instructions, Logger: s.logger})
	s.server.AddTool(&sdk.Tool{
		Name:        s.toolName,
		Description: agent.Description(),
		InputSchema: &jsonschema.Schema{
			Type:     "object",
			Required: []string{"input"},
			Properties: map[string]*jsonschema.Schema{
				"input": {Type: "string", Description: "the request for the agent, in plain language"},
			},
		},
	}, s.handle)
	s.http = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.server }, &sdk.StreamableHTTPOptions{
		Logger:                       s.logger,
		MaxRequestBodyBytes:          int64(s.frameLimit()),
		PropagateRequestCancellation: true,
		Stateless:                    cfg.stateless,
	})
	if cfg.sessionContext != nil && cfg.runner == nil {
		s.cfg.runner = runner.New()
	}
	// The methods the go-sdk's transport serves; it answers any other 405
	// in plain text, so ServeHTTP answers those first. Only membership is
	// used: the transport itself serves each method.
	s.methods = httphost.Methods{http.MethodPost: s.http.ServeHTTP}
	if !cfg.stateless {
		s.methods[http.MethodGet] = s.http.ServeHTTP
		s.methods[http.MethodDelete] = s.http.ServeHTTP
	}
	return s, nil
}

// SanitizeToolName maps name onto [a-zA-Z0-9_-]+: every other character
// becomes an underscore, and an empty name becomes "agent".
func SanitizeToolName(name string) string {
	if name == "" {
		return "agent"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
}

// ToolName returns the name the agent is served under.
func (s *AgentServer) ToolName() string { return s.toolName }

// ServeStdio serves one client on the process's stdin and stdout until the
// client disconnects (nil) or ctx ends (its error). It is [AgentServer.ServeIO]
// on os.Stdin and os.Stdout.
func (s *AgentServer) ServeStdio(ctx context.Context) error {
	return s.ServeIO(ctx, os.Stdin, os.Stdout)
}

// ServeIO serves one client speaking newline-delimited JSON-RPC, the stdio
// transport of MCP, on in and out until in ends (nil) or ctx ends (its
// error). It closes in, when in is an io.Closer, as it returns; never out.
//
// A line that is not a JSON-RPC message is answered, not fatal: one that
// is not JSON gets a -32700 parse error, one that is JSON but no message
// (or a batch the go-sdk refuses) a -32600 invalid request, both with id
// null unless the line carried a readable id, and the session goes on. A
// line longer than max(16 MiB, six times [WithMaxInputBytes] plus 64 KiB)
// is read to its end without being kept and answered -32600.
func (s *AgentServer) ServeIO(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.ServeTransport(ctx, &lineTransport{in: in, out: out, limit: s.lineLimit(), logger: s.logger})
}

// lineLimit bounds one stdio line: the go-sdk's default, or the frame
// limit when the input bound asks for more.
func (s *AgentServer) lineLimit() int { return max(sdk.DefaultMaxLineLength, s.frameLimit()) }

// frameLimit bounds one JSON-RPC message or HTTP body. It leaves room above
// the input bound (escaping can grow a string sixfold), so that an input a
// little too long gets a clear error result rather than a dropped
// connection, while a flood is still refused before it is parsed.
func (s *AgentServer) frameLimit() int {
	return 6*s.cfg.maxInputBytes + 64<<10
}

// ServeTransport serves one client over t until it disconnects (nil) or ctx
// ends (its error).
func (s *AgentServer) ServeTransport(ctx context.Context, t sdk.Transport) error {
	err := s.server.Run(ctx, t)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, sdk.ErrConnectionClosed):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return newError(KindServe, s.cfg.impl.name, err)
}

// ServeHTTP serves the streamable-HTTP transport, to mount in a mux of your
// own: mux.Handle("/agents/triage", server).
//
// A method the transport does not serve is answered 405, and a POST whose
// body is too large or too slow ([WithBodyReadTimeout]) 413 or 408, in
// the JSON error shape of package server:
// {"error": {"code": "method_not_allowed", "message": "…"}}.
//
// A request the transport refuses is answered with a JSON-RPC error
// response, as stdio answers it, id null unless the body was one call:
// a body that is not JSON -32700 (400); one that is not a JSON-RPC message,
// a Content-Type other than application/json (415) or an Accept without
// both application/json and text/event-stream (406) -32600; an unknown
// method -32601 (400; the go-sdk answers 404 from protocol 2026-07-28 on,
// where older clients read a 404 as the session's end); any other refusal
// of the go-sdk -32600 or, for a 5xx, -32603, with its status.
func (s *AgentServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.methods[r.Method]; !ok {
		s.methods.ServeHTTP(w, r) // the JSON 405
		return
	}
	r.Header.Del(requestIDHeader)
	rw := &rpcErrorWriter{ResponseWriter: w}
	defer rw.finish()
	if r.Method == http.MethodPost {
		// The body is read here, bounded in size and time, so that a
		// client that stalls gets a 408 and its connection back: the
		// go-sdk reads it with no deadline and answers a failed read 400.
		body, e := httphost.ReadBody(w, r, int64(s.frameLimit()), s.cfg.bodyTimeout)
		if e != nil {
			httphost.Write(w, e)
			return
		}
		msg, status, refused := checkPost(r, body)
		if refused != nil {
			writeRPCError(w, status, refused)
			return
		}
		rw.id, rw.method = requestOf(msg)
		r.Body = io.NopCloser(bytes.NewReader(body))
		id := strconv.FormatUint(s.postID.Add(1), 36)
		r.Header.Set(requestIDHeader, id)
		s.posts.Store(id, r.Context())
		defer s.posts.Delete(id)
	}
	s.http.ServeHTTP(rw, r)
}

// ListenAndServe binds addr and serves streamable HTTP at /mcp until ctx
// ends, then shuts down, giving open requests a few seconds. It returns nil
// after ctx ends, or an [*Error] of kind Bind or Serve.
func (s *AgentServer) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return newError(KindBind, addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is [AgentServer.ListenAndServe] on a listener the caller opened; it
// closes ln.
//
// Headers are bounded (10 s, 64 KiB, else 431) and idle keep-alive
// connections (2 min) as the agent server bounds them, and a POST's body
// by [WithBodyReadTimeout]; there is no whole-request timeout, which
// would cut the long-lived streams of streamable HTTP. A path other than
// /mcp is answered 404, and every rejection — net/http's own for oversized
// headers or a malformed request included — is JSON in the agent server's
// error shape.
func (s *AgentServer) Serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("/mcp", s)
	mux.HandleFunc("/", httphost.NotFound)
	if err := httphost.Serve(ctx, ln, mux, 5*time.Second); err != nil {
		return newError(KindServe, addr, err)
	}
	return nil
}

// handle runs the agent for one tools/call.
func (s *AgentServer) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	var in agentInput
	if err := json.Unmarshal(args, &in); err != nil || in.Input == nil {
		return errorResult(`invalid arguments: want {"input": string}`), nil
	}
	if len(*in.Input) > s.cfg.maxInputBytes {
		return errorResult(fmt.Sprintf("input too large: %d bytes, at most %d accepted", len(*in.Input), s.cfg.maxInputBytes)), nil
	}
	rc, err := s.runContext(ctx, req)
	if err != nil {
		return errorResult("session unavailable: " + err.Error()), nil
	}
	var timeout time.Duration
	if s.cfg.runConfig != nil {
		// The server owns the deadline, so that its expiry always reads the
		// same to the client whatever the agent does with a Timeout.
		cfg := *s.cfg.runConfig
		timeout, cfg.Timeout = cfg.Timeout, 0
		rc = rc.Derive(helikon.WithRunConfig(cfg))
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if timeout > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeoutCause(runCtx, timeout, errRunTimeout)
		defer stop()
	}
	if req.Extra != nil {
		if post, ok := s.posts.Load(req.Extra.Header.Get(requestIDHeader)); ok {
			stop := context.AfterFunc(post.(context.Context), func() { cancel(errClientGone) })
			defer stop()
		}
	}
	progress := newProgress(req, s.logger)
	var final string
	var runErr error
	stream := s.agent.Run(runCtx, rc, helikon.UserText(*in.Input))
	if s.cfg.runner != nil {
		stream = s.cfg.runner.RunStreamed(runCtx, s.agent, rc, helikon.UserText(*in.Input))
	}
	for ev := range stream {
		switch e := ev.(type) {
		case helikon.MessageOutput:
			final = e.Item.Text()
		case helikon.RunFailed:
			runErr = e.Err
		}
		progress.see(runCtx, ev)
	}
	if context.Cause(runCtx) == errRunTimeout && ctx.Err() == nil {
		return errorResult(fmt.Sprintf("agent run timed out after %s", timeout)), nil
	}
	if runErr != nil {
		return errorResult("agent run failed: " + runErr.Error()), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: final}}}, nil
}

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// runContext returns the RunContext of one call: from the session context
// when one is set, else from the context factory.
func (s *AgentServer) runContext(ctx context.Context, req *sdk.CallToolRequest) (*helikon.RunContext, error) {
	if s.cfg.sessionContext == nil {
		if rc := s.cfg.newContext(); rc != nil {
			return rc, nil
		}
		return helikon.Ephemeral(), nil
	}
	id := ""
	if req.Extra != nil && req.Extra.Header != nil {
		id = req.Extra.Header.Get(sessionHeader)
	}
	rc, err := s.cfg.sessionContext(ctx, id)
	if err == nil && rc == nil {
		err = errors.New("the session context returned no RunContext")
	}
	return rc, err
}

// errRunTimeout marks a run ended by the server's RunConfig.Timeout.
var errRunTimeout = errors.New("agent run timed out")

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
