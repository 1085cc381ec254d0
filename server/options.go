package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// Limits bound what one server accepts. A zero field takes its default.
type Limits struct {
	// MaxBodyBytes caps a request body (413 beyond). Default 1 MiB.
	MaxBodyBytes int64
	// MaxJSONDepth caps how deeply a body's objects and arrays nest (400
	// beyond). Default 64.
	MaxJSONDepth int
	// MaxConcurrentRuns caps the runs this server drives at once, queued
	// ones included (429 beyond). Default 4096.
	MaxConcurrentRuns int
	// MaxRunsPerSession caps the runs one session has running or waiting
	// for its turn (429 beyond). Default 8.
	MaxRunsPerSession int
	// MaxRunsPerPrincipal caps the runs one principal has running or
	// waiting, on all its sessions, so that one caller cannot take every
	// slot of MaxConcurrentRuns from the others (429 beyond). A run
	// continued by an approval counts against its owner. The anonymous
	// principal of a server without an Authenticator is every caller, so
	// only MaxConcurrentRuns caps it. Default 256.
	MaxRunsPerPrincipal int
	// MaxStreamsPerPrincipal caps the event streams (SSE and WebSocket)
	// one principal holds open at once (429 beyond): a stream of a
	// paused or long run stays open, and each holds memory and a
	// goroutine. The anonymous principal is not capped, as for
	// MaxRunsPerPrincipal. Default 1024.
	MaxStreamsPerPrincipal int
	// RetryAfter is the Retry-After a 429 suggests. Default 1 s.
	RetryAfter time.Duration
}

// The default limits.
const (
	DefaultMaxBodyBytes           = 1 << 20
	DefaultMaxJSONDepth           = 64
	DefaultMaxConcurrentRuns      = 4096
	DefaultMaxRunsPerSession      = 8
	DefaultMaxRunsPerPrincipal    = 256
	DefaultMaxStreamsPerPrincipal = 1024
	DefaultRetryAfter             = time.Second
	DefaultRetention              = time.Hour
	DefaultRetainedRuns           = 1000
	DefaultGracePeriod            = 30 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxJSONDepth <= 0 {
		l.MaxJSONDepth = DefaultMaxJSONDepth
	}
	if l.MaxConcurrentRuns <= 0 {
		l.MaxConcurrentRuns = DefaultMaxConcurrentRuns
	}
	if l.MaxRunsPerSession <= 0 {
		l.MaxRunsPerSession = DefaultMaxRunsPerSession
	}
	if l.MaxRunsPerPrincipal <= 0 {
		l.MaxRunsPerPrincipal = DefaultMaxRunsPerPrincipal
	}
	if l.MaxStreamsPerPrincipal <= 0 {
		l.MaxStreamsPerPrincipal = DefaultMaxStreamsPerPrincipal
	}
	if l.RetryAfter <= 0 {
		l.RetryAfter = DefaultRetryAfter
	}
	return l
}

// Option configures a [Server].
type Option func(*config)

type config struct {
	sessions  SessionProvider
	contexts  ContextProvider
	auth      Authenticator
	log       EventLog
	runner    *runner.Runner
	limits    Limits
	retention time.Duration
	keep      int
	grace     time.Duration
	logger    *slog.Logger
	devUI     bool
	factory   AgentFactory
	index     RunIndex
	cases     CaseSink
	mounts    []mount
}

// mount is a handler of the caller's served under a path prefix.
type mount struct {
	prefix string
	h      http.Handler
}

// WithMount serves h for every path under prefix (which ends in "/", as
// "/a2a/"), behind the server's [Authenticator]: h finds the caller with
// [PrincipalOf]. It is how other protocols share the server's address and
// its principals, an A2A server of package a2a for one. A prefix that
// would take one of the server's own routes makes [New] fail.
func WithMount(prefix string, h http.Handler) Option {
	return func(c *config) { c.mounts = append(c.mounts, mount{prefix, h}) }
}

// AgentFactory builds the agent named name for one run. ctx is the
// request's, carrying its [Principal] ([PrincipalOf]).
type AgentFactory func(ctx context.Context, name string) (helikon.Agent, error)

// WithAgentFactory has every run, a continuation after an approval
// included, run an agent f builds for it, instead of sharing the agent
// [New] was given: for agents that keep per-run state (a scripted mock
// model, which replays its script once) or that are built for the caller
// (a per-user tool set). The agents given to New still name and describe
// what the server serves (GET /agents, the OpenAPI document). f must
// return an agent of the name asked for; an error it returns fails the
// request before the run starts: an [*Error] with its status, any other
// a 500.
func WithAgentFactory(f AgentFactory) Option { return func(c *config) { c.factory = f } }

// WithSessionProvider sets how X-Session-Id maps to sessions (default
// [NewMemorySessions]).
func WithSessionProvider(p SessionProvider) Option { return func(c *config) { c.sessions = p } }

// WithContextProvider sets how each run's RunContext is built (default
// [DefaultContext]).
func WithContextProvider(p ContextProvider) Option { return func(c *config) { c.contexts = p } }

// WithAuth sets the [Authenticator] every request passes first (default:
// every request is admitted).
func WithAuth(a Authenticator) Option { return func(c *config) { c.auth = a } }

// WithEventLog sets where runs' events are kept (default [NewMemoryLog]);
// replicas behind one load balancer share one, such as the Redis log of
// package redislog.
func WithEventLog(l EventLog) Option { return func(c *config) { c.log = l } }

// WithRunner sets the runner that drives agents (default runner.New()).
func WithRunner(r *runner.Runner) Option { return func(c *config) { c.runner = r } }

// WithLimits sets the request and concurrency limits.
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithRetention keeps finished runs for period and at most keep of them
// (defaults [DefaultRetention], [DefaultRetainedRuns]); a sweeper prunes
// the rest. The count is the server's, not each principal's: a principal
// that finishes runs quickly pushes every principal's oldest finished
// runs out of the log (a [RunIndex] keeps their records).
func WithRetention(period time.Duration, keep int) Option {
	return func(c *config) { c.retention, c.keep = period, keep }
}

// WithGracePeriod sets how long a shutdown lets running runs finish before
// it cancels them (default [DefaultGracePeriod]).
func WithGracePeriod(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithLogger sets where the server logs what it cannot tell a caller
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithDevUI serves the dev UI (package server/devui) at /ui/, with /
// redirecting there: pick an agent, chat with it on a session, and watch
// each run's events live. The UI's static files are served without the
// [Authenticator] (they hold no data); every route the UI calls passes it
// like any other request, the page asking for a bearer token when the
// server answers 401. Meant for development.
func WithDevUI() Option { return func(c *config) { c.devUI = true } }
