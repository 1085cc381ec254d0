package a2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/hosting"
)

// ErrInvalidOption reports an option [NewServer] or [NewRemoteAgent] cannot
// use.
var ErrInvalidOption = errors.New("invalid option")

// SessionProvider maps a session id to the session a run loads and
// persists. It has the method set of server.SessionProvider, so one
// provider (SQLite, PostgreSQL, Redis) serves both. The [Server] asks for
// ids it derives from the caller's principal and the A2A context id.
type SessionProvider interface {
	Session(ctx context.Context, id string) (helikon.Session, error)
}

// Authenticator names the caller of a request, or refuses it with an
// error. The principal scopes everything the caller reaches: sessions,
// tasks, approvals.
type Authenticator func(r *http.Request) (principal string, err error)

// ServerOption configures a [Server].
type ServerOption func(*serverConfig) error

type serverConfig struct {
	url, version string
	description  string
	sessions     SessionProvider
	newContext   func(helikon.Session) *helikon.RunContext
	authenticate Authenticator
	logger       *slog.Logger
	maxRequest   int64
	maxTasks     int
	maxTaskBytes int64
	// maxRuns and maxRunsPerPrincipal bound the runs in flight, on the
	// server and per principal.
	maxRuns, maxRunsPerPrincipal int
	factory                      func(ctx context.Context) (helikon.Agent, error)
}

func defaultServerConfig() serverConfig {
	return serverConfig{
		url:                 "/",
		version:             "1.0.0",
		sessions:            hosting.NewMemory(),
		newContext:          hosting.PlanContext(),
		authenticate:        func(*http.Request) (string, error) { return "", nil },
		logger:              slog.Default(),
		maxRequest:          4 << 20,
		maxTasks:            10_000,
		maxTaskBytes:        256 << 20,
		maxRuns:             4096,
		maxRunsPerPrincipal: 256,
	}
}

// WithURL sets the URL the agent card advertises for the JSON-RPC binding:
// where clients send their requests. The default "/" suits only a card read
// by a client that resolves it against the card's own address.
func WithURL(url string) ServerOption {
	return func(c *serverConfig) error {
		if url == "" {
			return fmt.Errorf("a2a: %w: empty URL", ErrInvalidOption)
		}
		c.url = url
		return nil
	}
}

// WithVersion sets the agent version the card advertises (default 1.0.0).
func WithVersion(v string) ServerOption {
	return func(c *serverConfig) error { c.version = v; return nil }
}

// WithSessions sets where each A2A context's session lives (default: in
// memory, for the life of the process).
func WithSessions(p SessionProvider) ServerOption {
	return func(c *serverConfig) error {
		if p == nil {
			return fmt.Errorf("a2a: %w: nil session provider", ErrInvalidOption)
		}
		c.sessions = p
		return nil
	}
}

// WithContextOptions sets the options of every run's
// [helikon.RunContext]. Runs start in plan mode, as the agent server's do;
// options here may change that (a permission mode, a policy, hooks).
func WithContextOptions(opts ...helikon.ContextOption) ServerOption {
	return func(c *serverConfig) error { c.newContext = hosting.PlanContext(opts...); return nil }
}

// WithRunContext sets how each run's [helikon.RunContext] is built from
// its session, for what [WithContextOptions] cannot say (a mode per agent,
// a context derived from the session). The context it returns must use
// the session it is given.
func WithRunContext(f func(session helikon.Session) *helikon.RunContext) ServerOption {
	return func(c *serverConfig) error {
		if f == nil {
			return fmt.Errorf("a2a: %w: nil run context function", ErrInvalidOption)
		}
		c.newContext = f
		return nil
	}
}

// WithAuthenticator names each request's caller. Without it every caller
// is the same anonymous principal.
func WithAuthenticator(a Authenticator) ServerOption {
	return func(c *serverConfig) error {
		if a == nil {
			return fmt.Errorf("a2a: %w: nil authenticator", ErrInvalidOption)
		}
		c.authenticate = a
		return nil
	}
}

// WithLogger sets where the server logs (default [slog.Default]).
func WithLogger(l *slog.Logger) ServerOption {
	return func(c *serverConfig) error {
		if l == nil {
			return fmt.Errorf("a2a: %w: nil logger", ErrInvalidOption)
		}
		c.logger = l
		return nil
	}
}

// WithMaxRequestBytes bounds a request body (default 4 MiB).
func WithMaxRequestBytes(n int64) ServerOption {
	return func(c *serverConfig) error {
		if n <= 0 {
			return fmt.Errorf("a2a: %w: max request bytes %d", ErrInvalidOption, n)
		}
		c.maxRequest = n
		return nil
	}
}

// WithMaxTasks bounds how many tasks the server remembers for tasks/get
// and resumption (default 10,000). A save past it, or past
// [WithMaxTaskBytes], makes room one task at a time, each counted by the
// bound passed (tasks, or bytes) with the task being saved at its new
// size:
//   - the saver gives up its own least recently saved finished task (else
//     unfinished one) when it holds at least as much as every other
//     principal and has a task besides the one it saves, so that a
//     caller flooding the store forgets its own tasks;
//   - else the principal holding the most gives one up, if it holds at
//     least as much as the saver; among equals, the one whose task to go
//     is finished comes first, then the one whose task was saved least
//     recently, so that a newcomer at a store of one-task principals
//     takes the least recently saved of theirs, not its own;
//   - else, the saver holding only the task it saves and more bytes than
//     every other principal, the save fails with [ErrTaskTooLarge] and
//     what it evicted is put back.
//
// A save never evicts the task it saves, nor a task of a principal
// holding less than the saver.
func WithMaxTasks(n int) ServerOption {
	return func(c *serverConfig) error {
		if n <= 0 {
			return fmt.Errorf("a2a: %w: max tasks %d", ErrInvalidOption, n)
		}
		c.maxTasks = n
		return nil
	}
}

// WithAgentFactory builds the agent of each run, for agents with per-run
// state (a scripted model, a per-caller tool set); the agent [NewServer]
// got describes the server in its card. The context carries the request's
// values. A factory error fails the task.
func WithAgentFactory(f func(ctx context.Context) (helikon.Agent, error)) ServerOption {
	return func(c *serverConfig) error {
		if f == nil {
			return fmt.Errorf("a2a: %w: nil agent factory", ErrInvalidOption)
		}
		c.factory = f
		return nil
	}
}

// WithMaxRuns bounds the runs the server drives at once (default 4,096),
// and those of one principal (default 256), so that one caller cannot take
// every slot from the others. A message past either bound is refused with
// a JSON-RPC error before a task is made. The anonymous principal of a
// server without [WithAuthenticator] is every caller: only the first bound
// applies to it.
func WithMaxRuns(server, perPrincipal int) ServerOption {
	return func(c *serverConfig) error {
		if server <= 0 || perPrincipal <= 0 {
			return fmt.Errorf("a2a: %w: max runs %d, per principal %d", ErrInvalidOption, server, perPrincipal)
		}
		c.maxRuns, c.maxRunsPerPrincipal = server, perPrincipal
		return nil
	}
}

// WithMaxTaskBytes bounds the bytes of the tasks the server remembers
// (default 256 MiB), each counted as its JSON (its messages and artifacts
// included): past it, room is made as past [WithMaxTasks], by bytes. A
// task larger than the bound, whether its message is or the run grows it,
// fails its save with [ErrTaskTooLarge], which the client gets as a
// JSON-RPC server error (-32000) saying so; a task the run grew keeps its
// last stored state, failed. A count alone let tasks of messages near
// [WithMaxRequestBytes] hold [WithMaxTasks] times that (40 GB at the
// defaults, by arithmetic).
func WithMaxTaskBytes(n int64) ServerOption {
	return func(c *serverConfig) error {
		if n <= 0 {
			return fmt.Errorf("a2a: %w: max task bytes %d", ErrInvalidOption, n)
		}
		c.maxTaskBytes = n
		return nil
	}
}
