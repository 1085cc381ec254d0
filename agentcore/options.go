package agentcore

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore/internal/settings"
	"github.com/paigasus/helikon/internal/hosting"
	"github.com/paigasus/helikon/runner"
)

// SessionProvider maps the invocation's session id to the session its run
// loads and persists. id is empty when the request carries no session
// header: return a fresh session that is not kept. It is the same type as
// server.SessionProvider, so one provider serves both hosts.
type SessionProvider = hosting.Provider

// SessionFunc adapts a function to a [SessionProvider]: its Session method
// calls the function.
type SessionFunc = hosting.Func

// ContextFunc builds an invocation's [helikon.RunContext] from the request
// and the run's session, which the RunContext must use. In MCP mode (see
// agentcore/mcpserver) r is nil: an MCP call has no request of its own.
type ContextFunc func(r *http.Request, session helikon.Session) (*helikon.RunContext, error)

// DefaultContext is the safe default [ContextFunc]: every run starts in
// [governance.PermissionPlan], which admits only tools that declare
// themselves [helikon.ReadOnly], so an invocation can never make the agent
// write, send or run anything until the operator opts in with opts, which
// are applied after it:
//
//	agentcore.WithContext(agentcore.DefaultContext(
//		governance.WithPermissionMode(governance.PermissionDefault),
//		helikon.WithApprovalHandler(approver)))
func DefaultContext(opts ...helikon.ContextOption) ContextFunc {
	return settings.PlanContext(opts...)
}

// DefaultMaxBodyBytes bounds an invocation's body unless [WithMaxBodyBytes]
// says otherwise.
const DefaultMaxBodyBytes = 4 << 20

// Option configures [New] and the MCP protocol's server
// (agentcore/mcpserver.New).
type Option func(*settings.Config)

// WithSessions sets the session provider (default: one in-memory session
// per session id for the life of the process — fine for a test, lost when
// AgentCore stops the microVM; use a session backend in production).
func WithSessions(p SessionProvider) Option { return func(c *settings.Config) { c.Sessions = p } }

// WithContext sets how each run's RunContext is built (default:
// [DefaultContext]).
func WithContext(f ContextFunc) Option { return func(c *settings.Config) { c.Context = f } }

// WithRunner sets the runner that loads and persists sessions (default:
// runner.New()).
func WithRunner(r *runner.Runner) Option { return func(c *settings.Config) { c.Runner = r } }

// WithMaxBodyBytes bounds an invocation's body; a larger one is answered
// 413.
func WithMaxBodyBytes(n int64) Option { return func(c *settings.Config) { c.MaxBody = n } }

// WithBodyReadTimeout bounds how long reading an invocation's body may
// take (default [DefaultBodyReadTimeout]); a slower body is answered 408
// and its connection closed. It must be positive.
func WithBodyReadTimeout(d time.Duration) Option {
	return func(c *settings.Config) { c.BodyTimeout = d }
}

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *settings.Config) { c.Logger = l } }
