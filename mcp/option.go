package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// Defaults of the client and the server.
const (
	// DefaultTerminateTimeout is how long Close waits for a stdio server to
	// exit after its stdin closes before it signals it. The go-sdk's own
	// default is 5 s, too long for a program that opens and closes servers.
	DefaultTerminateTimeout = 500 * time.Millisecond
	// DefaultMaxTools bounds how many tools a client accepts from one server.
	DefaultMaxTools = 50_000
	// DefaultMaxInputBytes bounds the input string an [AgentServer] accepts.
	DefaultMaxInputBytes = 1 << 20
	// DefaultBodyReadTimeout bounds reading a POST's body (see
	// [WithBodyReadTimeout]).
	DefaultBodyReadTimeout = time.Minute
)

// ClientOption configures [Connect], [ConnectStdio] and [ConnectHTTP].
type ClientOption interface{ applyClient(*clientConfig) }

// ServerOption configures [NewAgentServer].
type ServerOption interface{ applyServer(*serverConfig) }

type clientConfig struct {
	prefix           string
	lazy             bool
	impl             implementation
	header           http.Header
	httpClient       *http.Client
	terminateTimeout time.Duration
	maxTools         int
	logger           *slog.Logger
}

type serverConfig struct {
	impl           implementation
	instructions   string
	newContext     func() *helikon.RunContext
	sessionContext func(ctx context.Context, sessionID string) (*helikon.RunContext, error)
	runner         *runner.Runner
	stateless      bool
	runConfig      *helikon.RunConfig
	maxInputBytes  int
	bodyTimeout    time.Duration
	logger         *slog.Logger
}

type implementation struct{ name, version string }

type clientOptionFunc func(*clientConfig)

func (f clientOptionFunc) applyClient(c *clientConfig) { f(c) }

type serverOptionFunc func(*serverConfig)

func (f serverOptionFunc) applyServer(c *serverConfig) { f(c) }

// WithToolPrefix prefixes every adapted tool's name, search_tools included,
// so that tools of several servers cannot clash: "fs_" turns read_file into
// fs_read_file.
func WithToolPrefix(prefix string) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.prefix = prefix })
}

// WithLazy trades eager schemas for a smaller prompt: every tool advertises a
// placeholder schema and a search_tools tool returns the real ones. See
// [Client.Tools].
func WithLazy() ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.lazy = true })
}

// WithHeader adds an HTTP header, an Authorization token say, to every
// request of a streamable-HTTP connection.
func WithHeader(key, value string) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header.Add(key, value)
	})
}

// WithHTTPClient sets the HTTP client of a streamable-HTTP connection
// (timeouts, TLS, proxies). The default is a client without a timeout,
// since an event stream stays open for the session's life.
func WithHTTPClient(hc *http.Client) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.httpClient = hc })
}

// WithTerminateTimeout sets how long closing a stdio connection waits for
// the child to exit on its own before it sends SIGTERM, and then SIGKILL
// (default [DefaultTerminateTimeout]).
func WithTerminateTimeout(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.terminateTimeout = d })
}

// WithMaxTools bounds how many tools the client accepts from the server
// (default [DefaultMaxTools]); a server offering more fails the connection.
func WithMaxTools(n int) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.maxTools = n })
}

// WithRunConfig sets the [helikon.RunConfig] of every run an [AgentServer]
// starts. Its Timeout is enforced by the server: a run that outlasts it
// ends the call with an MCP error result.
func WithRunConfig(cfg helikon.RunConfig) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.runConfig = &cfg })
}

// WithContextFactory sets how an [AgentServer] makes the fresh
// [helikon.RunContext] of each call (default [helikon.Ephemeral]). It is
// called once per tools/call.
func WithContextFactory(f func() *helikon.RunContext) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.newContext = f })
}

// WithSessionContext makes each call's [helikon.RunContext] from the MCP
// session it belongs to: f gets the call's Mcp-Session-Id header (empty
// over stdio or when the client sent none) and returns a RunContext whose
// session holds that conversation. The calls then run through the runner
// ([WithRunner]; runner.New() by default), which loads the session before a
// run and records the run in it, so one MCP session is one conversation.
// An error from f ends the call with an error result. It replaces
// [WithContextFactory].
func WithSessionContext(f func(ctx context.Context, sessionID string) (*helikon.RunContext, error)) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.sessionContext = f })
}

// WithRunner runs an [AgentServer]'s calls through r, which loads and
// records each run's session (default: the agent runs directly, on the
// context factory's session, unless [WithSessionContext] is set).
func WithRunner(r *runner.Runner) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.runner = r })
}

// WithStateless serves streamable HTTP statelessly: every request stands
// alone, and an Mcp-Session-Id the client (or a platform in front of the
// server, as AWS Bedrock AgentCore does) sends is accepted without having
// been issued here. A stateless server sends no server-to-client requests.
func WithStateless() ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.stateless = true })
}

// WithInstructions sets the instructions an [AgentServer] reports at
// initialize, which clients may show their model.
func WithInstructions(text string) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.instructions = text })
}

// WithMaxInputBytes bounds the input string an [AgentServer] accepts
// (default [DefaultMaxInputBytes]); a longer one gets an error result.
func WithMaxInputBytes(n int) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.maxInputBytes = n })
}

// WithBodyReadTimeout bounds how long an [AgentServer] served over HTTP
// waits for a POST's body (default [DefaultBodyReadTimeout]); a slower
// body is answered 408 and its connection closed, so a client that sends
// its headers and stalls cannot hold a connection for ever. It must be
// positive.
func WithBodyReadTimeout(d time.Duration) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.bodyTimeout = d })
}

// WithImplementation sets the name and version reported at initialize, by
// a client or by an [AgentServer].
func WithImplementation(name, version string) ImplementationOption {
	return ImplementationOption{implementation{name, version}}
}

// ImplementationOption is the option [WithImplementation] returns; it
// configures clients and servers alike.
type ImplementationOption struct{ impl implementation }

func (o ImplementationOption) applyClient(c *clientConfig) { c.impl = o.impl }
func (o ImplementationOption) applyServer(c *serverConfig) { c.impl = o.impl }

// WithLogger sets where a client or a server logs what it cannot return:
// a failed tool-list refresh, a transport error (default: discarded).
func WithLogger(l *slog.Logger) LoggerOption { return LoggerOption{l} }

// LoggerOption is the option [WithLogger] returns; it configures clients
// and servers alike.
type LoggerOption struct{ l *slog.Logger }

func (o LoggerOption) applyClient(c *clientConfig) { c.logger = o.l }
func (o LoggerOption) applyServer(c *serverConfig) { c.logger = o.l }
