package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
)

// Client is a connection to one MCP server whose tools it adapts to
// [helikon.Tool]. Build it with [ConnectStdio], [ConnectHTTP] or [Connect];
// each runs the initialize handshake and fetches the whole tool list before
// returning, so [Client.Tools] needs no network.
//
// When the server announces notifications/tools/list_changed, the client
// fetches the list again in the background; [Client.Tools] and search_tools
// then see the new tools, and a call to a tool the server withdrew fails
// with a [helikon.ToolError] instead of reaching the server.
//
// A Client is safe for concurrent use. Close it to end the session; a stdio
// server's process (and its process group) is gone when Close returns.
type Client struct {
	session *sdk.ClientSession
	cfg     clientConfig
	server  string       // names the server in errors
	cmd     *exec.Cmd    // the stdio child, or nil
	stderr  *stderrTail  // the child's recent stderr, or nil
	logger  *slog.Logger // never nil

	mu     sync.RWMutex
	byName map[string]*remoteTool // keyed by the exposed (prefixed) name
	tools  []helikon.Tool         // adapted, in the server's order, search_tools last

	refresh   chan struct{}   // a list_changed arrived
	closing   context.Context // ends when Close starts, abandoning calls in flight
	stop      context.CancelFunc
	done      chan struct{} // the refresher has returned
	closeOnce sync.Once
	closeErr  error
}

// ConnectStdio starts cmd as a child speaking MCP over its stdin and stdout
// and connects to it. Set cmd's Args, Env and Dir as usual; build it with
// exec.Command, not exec.CommandContext, since the child lives until
// [Client.Close], not until ctx ends. Unless cmd.Stderr is set, the last
// few kilobytes of the child's stderr are kept for error messages. On unix
// the child gets a process group of its own (unless cmd.SysProcAttr is
// set), which Close kills.
func ConnectStdio(ctx context.Context, cmd *exec.Cmd, opts ...ClientOption) (*Client, error) {
	if cmd == nil {
		return nil, newError(KindOther, "", errors.New("nil command"))
	}
	cfg := newClientConfig(opts)
	var tail *stderrTail
	afterStart := func() {}
	if cmd.Stderr == nil {
		var w *os.File
		var err error
		if tail, w, err = newStderrTail(); err != nil {
			return nil, newError(KindSpawn, cmd.String(), err)
		}
		cmd.Stderr = w
		// The child holds its own copy once started; ours must go so that
		// the tail sees the end when the child exits.
		afterStart = func() { _ = w.Close() }
	}
	ownProcessGroup(cmd)
	t := &startHook{&sdk.CommandTransport{Command: cmd, TerminateDuration: cfg.terminateTimeout}, afterStart}
	c, err := connect(ctx, t, cfg, cmd.String(), cmd, tail)
	if err != nil {
		tail.close()
		if cmd.Process == nil {
			return nil, newError(KindSpawn, cmd.String(), errors.Unwrap(err))
		}
	}
	return c, err
}

// ConnectHTTP connects to a streamable-HTTP MCP server at url (the full
// endpoint, ".../mcp" for most servers). [WithHeader] and [WithHTTPClient]
// configure the requests.
func ConnectHTTP(ctx context.Context, url string, opts ...ClientOption) (*Client, error) {
	cfg := newClientConfig(opts)
	hc := cfg.httpClient
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &clientTransport{base: base, header: cfg.header}
	t := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &c}
	return connect(ctx, t, cfg, url, nil, nil)
}

// Connect connects over a transport the caller built: an in-memory pair, a
// custom socket, or a go-sdk CommandTransport with settings of its own.
func Connect(ctx context.Context, t sdk.Transport, opts ...ClientOption) (*Client, error) {
	if t == nil {
		return nil, newError(KindOther, "", errors.New("nil transport"))
	}
	return connect(ctx, t, newClientConfig(opts), fmt.Sprintf("%T", t), nil, nil)
}

func newClientConfig(opts []ClientOption) clientConfig {
	cfg := clientConfig{
		impl:             implementation{"helikon", moduleVersion()},
		terminateTimeout: DefaultTerminateTimeout,
		maxTools:         DefaultMaxTools,
	}
	for _, o := range opts {
		o.applyClient(&cfg)
	}
	return cfg
}

func connect(ctx context.Context, t sdk.Transport, cfg clientConfig, server string, cmd *exec.Cmd, tail *stderrTail) (*Client, error) {
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg: cfg, server: server, cmd: cmd, stderr: tail, logger: logger,
		refresh: make(chan struct{}, 1), done: make(chan struct{}),
	}
	client := sdk.NewClient(&sdk.Implementation{Name: cfg.impl.name, Version: cfg.impl.version}, &sdk.ClientOptions{
		Logger: logger,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case c.refresh <- struct{}{}:
			default: // a refresh is already pending; it will see this change too
			}
		},
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		c.reap()
		return nil, newError(KindConnect, server, c.withStderr(err))
	}
	c.session = session
	tools, err := c.listTools(ctx)
	if err != nil {
		_ = c.closeSession()
		return nil, newError(KindConnect, server, err)
	}
	c.install(tools)
	c.closing, c.stop = context.WithCancel(context.Background())
	go c.refresher(c.closing)
	return c, nil
}

// Tools returns the adapted tools: each remote tool under its prefixed name,
// with its description, input schema and an effect taken from its
// annotations (readOnlyHint gives [helikon.ReadOnly], anything else
// [helikon.SideEffect]; never [helikon.Write], since a server's annotations
// are untrusted). It implements [helikon.ToolSource].
//
// In lazy mode ([WithLazy]) every tool advertises the placeholder schema
// {"type":"object","additionalProperties":true}, and a last tool,
// search_tools (prefixed), takes {"query": string} and returns
// {"tools":[{"name","description","input_schema"}…],"total_matches":N}:
// the tools whose name or description contains the query, case-insensitively,
// at most 20 of them, with "truncated": true only when more matched.
func (c *Client) Tools(context.Context) ([]helikon.Tool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]helikon.Tool(nil), c.tools...), nil
}

// Session returns the underlying go-sdk session, for what this package does
// not wrap (resources, prompts).
func (c *Client) Session() *sdk.ClientSession { return c.session }

// Close ends the session, abandoning calls in flight (they fail with
// [ErrClosed]). For a stdio server it closes the child's stdin,
// waits up to the terminate timeout for it to exit, then signals it, and
// kills what is left of its process group. Close is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.stop()
		<-c.done
		c.closeErr = c.closeSession()
		c.stderr.close()
	})
	return c.closeErr
}

// ErrClosed is the cause of a tool call abandoned because its [Client] was
// closed, and the error of a call made after.
var ErrClosed = errors.New("mcp: client closed")

func (c *Client) closeSession() error {
	err := c.session.Close()
	c.reap()
	// A child that was told to stop and did not is an error worth
	// reporting; one that exited with a status after its stdin closed is
	// not: servers commonly exit 1 on EOF.
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil
	}
	return err
}

// reap kills whatever is left of a stdio child's process group.
func (c *Client) reap() {
	if c.cmd != nil {
		killProcessGroup(c.cmd)
	}
}

// Refresh fetches the server's tool list now and replaces the cache, as a
// list_changed notification does (on protocol 2026-07-28 the go-sdk may
// answer from a list the server declared cacheable and still fresh). It fails with an [*Error] of kind
// Service, keeping the previous list, when the server does not answer with
// a usable list.
func (c *Client) Refresh(ctx context.Context) error {
	tools, err := c.listTools(ctx)
	if err != nil {
		return newError(KindService, c.server, err)
	}
	c.install(tools)
	return nil
}

// refresher fetches the tool list again after each list_changed, until stop.
func (c *Client) refresher(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.refresh:
		}
		if err := c.Refresh(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("mcp: tool list refresh failed; keeping the previous list", "error", err)
		}
	}
}

// listTools fetches every page of the server's tool list and adapts it.
func (c *Client) listTools(ctx context.Context) ([]*remoteTool, error) {
	var (
		out    []*remoteTool
		cursor string
		seen   = map[string]bool{}
		names  = map[string]bool{}
	)
	for {
		res, err := c.session.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", c.withStderr(err))
		}
		for _, t := range res.Tools {
			rt, err := c.adapt(t)
			if err != nil {
				return nil, err
			}
			if names[rt.name] {
				return nil, fmt.Errorf("the server lists two tools named %q", t.Name)
			}
			names[rt.name] = true
			out = append(out, rt)
			if len(out) > c.cfg.maxTools {
				return nil, fmt.Errorf("the server offers more than %d tools", c.cfg.maxTools)
			}
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list: the server repeated cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// adapt checks one listed tool and wraps it.
func (c *Client) adapt(t *sdk.Tool) (*remoteTool, error) {
	if t.Name == "" {
		return nil, errors.New("the server lists a tool without a name")
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	schema := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, schema); err != nil {
		return nil, fmt.Errorf("tool %q: invalid input schema: %w", t.Name, err)
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("tool %q: invalid input schema: type is %q, want \"object\"", t.Name, schema.Type)
	}
	effect := helikon.SideEffect
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		effect = helikon.ReadOnly
	}
	return &remoteTool{
		c: c, name: c.cfg.prefix + t.Name, remote: t.Name,
		description: t.Description, schema: schema, effect: effect,
	}, nil
}

// install replaces the tool cache.
func (c *Client) install(rts []*remoteTool) {
	byName := make(map[string]*remoteTool, len(rts))
	tools := make([]helikon.Tool, 0, len(rts)+1)
	for _, rt := range rts {
		byName[rt.name] = rt
		tools = append(tools, rt)
	}
	if c.cfg.lazy {
		tools = append(tools, &searchTool{c: c, name: c.cfg.prefix + "search_tools"})
	}
	c.mu.Lock()
	c.byName, c.tools = byName, tools
	c.mu.Unlock()
}

// current returns the live definition of the tool exposed as name.
func (c *Client) current(name string) (*remoteTool, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	rt, ok := c.byName[name]
	return rt, ok
}

// withStderr appends the child's recent stderr to err, if there is any.
func (c *Client) withStderr(err error) error {
	if tail := strings.TrimSpace(c.stderr.settled()); tail != "" {
		return fmt.Errorf("%w (server stderr: %s)", err, tail)
	}
	return err
}

// startHook runs after once its transport has started the child (or failed
// to).
type startHook struct {
	sdk.Transport
	after func()
}

// Connect starts the child, then runs the hook.
func (h *startHook) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := h.Transport.Connect(ctx)
	h.after()
	return conn, err
}

// maxHTTPResponseBytes bounds a response body that is not an event
// stream: the go-sdk reads a JSON answer whole, with no bound of its own,
// so a hostile server could otherwise make the client buffer without
// end. It is the bound the go-sdk sets on one stdio frame and one
// server-sent event.
const maxHTTPResponseBytes = sdk.DefaultMaxLineLength

// clientTransport adds the configured headers to every request and bounds
// every response body but an event stream's (whose events the go-sdk
// bounds one by one).
type clientTransport struct {
	base   http.RoundTripper
	header http.Header
}

// RoundTrip sends r with the headers added and bounds the answer.
func (t *clientTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.header) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.header {
			r.Header[k] = v
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	resp.Body = &boundedBody{ReadCloser: resp.Body, left: maxHTTPResponseBytes}
	return resp, nil
}

// errResponseTooLarge ends a response body past maxHTTPResponseBytes.
var errResponseTooLarge = fmt.Errorf("the server's response exceeds %d bytes", maxHTTPResponseBytes)

// boundedBody fails a read past its bound instead of returning more.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body that ends exactly at the bound
		// from one that goes on.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, errResponseTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
