package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/server/devui"
)

// ErrConfig reports a server that [New] refused to build.
var ErrConfig = errors.New("server: invalid configuration")

// Server serves agents over HTTP, Server-Sent Events and WebSocket. Build
// one with [New], mount [Server.Handler] in any mux or middleware stack (or
// let [Server.Serve] run it), and [Server.Shutdown] it when done.
type Server struct {
	mounts   []mount
	agents   map[string]helikon.Agent
	list     AgentList
	sessions SessionProvider
	contexts ContextProvider
	auth     Authenticator
	log      EventLog
	runner   *runner.Runner
	limits   Limits
	keep     int
	ret      time.Duration
	grace    time.Duration
	logger   *slog.Logger
	factory  AgentFactory
	runIndex RunIndex
	cases    CaseSink
	mux      *http.ServeMux
	openapi  []byte
	devUI    http.Handler
	calls    callStore // the model calls of runs started with capture=calls

	// runCtx parents every run; cancelling it cancels them all.
	runCtx     context.Context
	cancelRuns context.CancelFunc
	// connCtx parents every request; cancelling it ends every stream.
	connCtx     context.Context
	cancelConns context.CancelFunc

	runs       sync.WaitGroup // the run goroutines
	active     atomic.Int64   // runs started and not yet finished
	closing    atomic.Bool
	gates      sessionGates
	principals principalCounts // each principal's runs, for MaxRunsPerPrincipal
	streams    principalCounts // each principal's open event streams, for MaxStreamsPerPrincipal

	mu   sync.Mutex
	live map[string]*liveRun // runs this server drives

	// stopRelay stops the cancels relayed from other replicas (nil
	// without a [CancelRelay]).
	stopRelay func()

	sweepStop chan struct{}
	sweepDone chan struct{}
	shutdown  sync.Once
}

// liveRun is a run this server drives.
type liveRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	// pausing is set once the run has yielded its RunPaused, before the
	// event reaches the log: the run's record says paused only once its
	// stream has ended (done), and a client that saw run_paused waits for
	// that rather than finding the run still running (settledPause).
	pausing atomic.Bool
}

// AgentInfo describes one served agent.
type AgentInfo struct {
	Name        string `json:"name" jsonschema:"the agent's name, as used in URLs"`
	Description string `json:"description" jsonschema:"what the agent does"`
}

// AgentList is the body of GET /agents.
type AgentList struct {
	Agents []AgentInfo `json:"agents" jsonschema:"the served agents, in the order they were given"`
}

// New builds a server for agents, whose names must be non-empty, unique
// and usable as one URL path segment. It starts the retention sweeper,
// which [Server.Shutdown] stops.
func New(agents []helikon.Agent, opts ...Option) (*Server, error) {
	c := config{retention: DefaultRetention, keep: DefaultRetainedRuns, grace: DefaultGracePeriod}
	for _, o := range opts {
		o(&c)
	}
	if len(agents) == 0 {
		return nil, fmt.Errorf("%w: no agents", ErrConfig)
	}
	s := &Server{
		agents: make(map[string]helikon.Agent, len(agents)), list: AgentList{Agents: []AgentInfo{}},
		sessions: c.sessions, contexts: c.contexts, auth: c.auth, log: c.log, runner: c.runner,
		limits: c.limits.withDefaults(), keep: c.keep, ret: c.retention, grace: c.grace, logger: c.logger, factory: c.factory, runIndex: c.index, cases: c.cases,
		live: make(map[string]*liveRun),
	}
	for _, a := range agents {
		if a == nil {
			return nil, fmt.Errorf("%w: nil agent", ErrConfig)
		}
		name := a.Name()
		if !validSegment(name) {
			return nil, fmt.Errorf("%w: agent name %q is not one URL path segment", ErrConfig, name)
		}
		if _, dup := s.agents[name]; dup {
			return nil, fmt.Errorf("%w: two agents named %q", ErrConfig, name)
		}
		s.agents[name] = a
		s.list.Agents = append(s.list.Agents, AgentInfo{Name: name, Description: a.Description()})
	}
	if c.retention <= 0 || c.keep < 0 {
		return nil, fmt.Errorf("%w: retention %v, %d runs", ErrConfig, c.retention, c.keep)
	}
	if c.grace < 0 {
		return nil, fmt.Errorf("%w: negative grace period", ErrConfig)
	}
	for _, m := range c.mounts {
		if err := checkMount(m); err != nil {
			return nil, err
		}
	}
	s.mounts = c.mounts
	if s.sessions == nil {
		s.sessions = NewMemorySessions()
	}
	if s.contexts == nil {
		s.contexts = DefaultContext()
	}
	if s.log == nil {
		s.log = NewMemoryLog()
	}
	if s.runner == nil {
		s.runner = runner.New()
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	doc, err := s.openAPIDocument()
	if err != nil {
		return nil, fmt.Errorf("server: openapi document: %w", err)
	}
	s.openapi = doc
	if c.devUI {
		ui, err := devui.New()
		if err != nil {
			return nil, err
		}
		s.devUI = http.StripPrefix("/ui", ui)
	}
	s.runCtx, s.cancelRuns = context.WithCancel(context.Background())
	s.connCtx, s.cancelConns = context.WithCancel(context.Background())
	s.mux = s.routes()
	if relay, ok := s.log.(CancelRelay); ok {
		s.stopRelay = relay.OnCancel(s.cancelLive)
	}
	s.sweepStop, s.sweepDone = make(chan struct{}), make(chan struct{})
	go s.sweep()
	return s, nil
}

// checkMount refuses a mount without a handler or whose prefix is not a
// path under the root that leaves the server's own routes alone.
func checkMount(m mount) error {
	if m.h == nil {
		return fmt.Errorf("%w: mount %q has no handler", ErrConfig, m.prefix)
	}
	if len(m.prefix) < 3 || m.prefix[0] != '/' || m.prefix[len(m.prefix)-1] != '/' {
		return fmt.Errorf("%w: mount prefix %q is not a path like /name/", ErrConfig, m.prefix)
	}
	first := strings.SplitN(m.prefix[1:], "/", 2)[0]
	switch first {
	case "agents", "runs", "sessions", "eval", "openapi.json", "ui":
		return fmt.Errorf("%w: mount prefix %q would take the server's /%s routes", ErrConfig, m.prefix, first)
	}
	return nil
}

// validSegment reports whether name can stand as one URL path segment
// without escaping.
func validSegment(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return name != "." && name != ".."
}

// Handler returns the server's routes as an [http.Handler], for mounting
// under a prefix or inside other middleware:
//
//	mux.Handle("/api/v1/", http.StripPrefix("/api/v1", srv.Handler()))
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// sameOrigin refuses a browser's cross-site request that changes state
// (POST from another site's page: Sec-Fetch-Site or an Origin that is not
// the Host). Without an Authenticator the server's only credential is
// being reachable (helikon serve on 127.0.0.1), which every page a
// developer opens could otherwise use to start runs with the agents'
// tools. Requests from non-browser clients carry neither header and pass.
var sameOrigin = http.NewCrossOriginProtection()

// browser reports whether r comes from a browser: one sends Sec-Fetch-Site
// (or, if old, Origin), a non-browser client neither.
func browser(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != ""
}

// localHost reports whether host (a Host header) is an IP address or
// localhost. A page that rebinds its own domain name to 127.0.0.1 (DNS
// rebinding) is same-origin to the browser, so the origin check passes it;
// its requests still name that domain in Host, which no one but the
// attacker serves from a loopback address.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost") ||
		net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")) != nil
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if s.auth == nil {
		if err := sameOrigin.Check(r); err != nil {
			writeError(w, errorf(http.StatusForbidden, CodeForbidden, "",
				"cross-origin request refused: a server without an authenticator answers state-changing requests only from its own origin or non-browser clients"))
			return
		}
		if browser(r) && !localHost(r.Host) {
			writeError(w, errorf(http.StatusForbidden, CodeForbidden, "Host",
				"a server without an authenticator answers a browser only at an IP address or localhost, not at "+strconv.Quote(r.Host)+": set an Authenticator to serve browsers under a domain name"))
			return
		}
	}
	if s.auth != nil && !s.publicUI(r) {
		p, ctx, err := s.auth.Authenticate(r)
		if err != nil {
			e, ok := errors.AsType[*Error](err)
			if !ok {
				e = Unauthorized(err.Error())
			}
			s.logger.InfoContext(r.Context(), "server: request failed", "method", r.Method, "path", r.URL.Path,
				"status", e.Status, "err", e.Message)
			writeError(w, e)
			return
		}
		if p.ID == "" {
			// Fail closed: a principal without an id would share its
			// runs and sessions with every other such caller.
			s.logger.ErrorContext(r.Context(), "server: the authenticator admitted a request without a principal id",
				"method", r.Method, "path", r.URL.Path)
			writeError(w, errorf(http.StatusInternalServerError, CodeInternal, "", "the authenticator admitted the request without a principal id"))
			return
		}
		if ctx == nil {
			ctx = r.Context()
		}
		r = r.WithContext(withPrincipal(ctx, p))
	}
	sw := &statusWriter{ResponseWriter: w}
	s.mux.ServeHTTP(sw, r)
	s.logFailed(r, sw.status)
}

// publicUI reports a request for the dev UI's static files (and the
// redirects to them), which the server serves without authentication:
// they are the same for everyone and hold no data, and a page that a
// bearer token guards could not load to ask for the token. Every route
// the UI then calls passes the Authenticator.
func (s *Server) publicUI(r *http.Request) bool {
	if s.devUI == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	p := r.URL.Path
	return p == "/" || p == "/ui" || strings.HasPrefix(p, "/ui/")
}

// sweep prunes finished runs past retention until Shutdown.
func (s *Server) sweep() {
	defer close(s.sweepDone)
	every := min(max(s.ret/4, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.sweepStop:
			return
		case now := <-t.C:
			ctx, cancel := context.WithTimeout(s.runCtx, every)
			if _, err := s.log.Prune(ctx, now.Add(-s.ret), s.keep); err != nil {
				s.logger.Warn("server: prune finished runs", "err", err)
			}
			cancel()
		}
	}
}

// Shutdown stops the server's runs: new runs are refused (503) at once,
// running ones get until ctx is done to finish, then they are cancelled
// and the server waits for them to write their last events. It then ends
// every open stream and stops the sweeper. [Server.Serve] calls it; call
// it yourself when you mount [Server.Handler] elsewhere. It returns ctx's
// error when runs had to be cancelled.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.shutdown.Do(func() {
		s.closing.Store(true)
		done := make(chan struct{})
		go func() { s.runs.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			err = ctx.Err()
			s.cancelRuns()
			<-done
		}
		s.cancelRuns()
		s.cancelConns()
		close(s.sweepStop)
		<-s.sweepDone
		if s.stopRelay != nil {
			s.stopRelay()
		}
	})
	return err
}

// agentFor returns the agent that runs name's next run: the one [New] was
// given, or one the [AgentFactory] builds for it.
func (s *Server) agentFor(r *http.Request, name string) (helikon.Agent, *Error) {
	if s.factory == nil {
		return s.agents[name], nil
	}
	a, err := s.factory(r.Context(), name)
	if err != nil {
		return nil, s.providerError("build agent "+name, err)
	}
	if a == nil || a.Name() != name {
		s.logger.ErrorContext(r.Context(), "server: the agent factory built the wrong agent", "agent", name)
		return nil, errorf(http.StatusInternalServerError, CodeInternal, "", "the agent factory built no agent named "+strconv.Quote(name))
	}
	return a, nil
}
