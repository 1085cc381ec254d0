// Package settings holds what package agentcore's options set, so that
// the MCP protocol (package agentcore/mcpserver) takes the same options
// without package agentcore linking the MCP SDK.
package settings

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/hosting"
	"github.com/paigasus/helikon/runner"
)

// ContextFunc builds a run's RunContext from the request (nil in MCP mode)
// and the run's session.
type ContextFunc = func(r *http.Request, session helikon.Session) (*helikon.RunContext, error)

// Config is what the options set.
type Config struct {
	Sessions hosting.Provider
	Context  ContextFunc
	Runner   *runner.Runner
	MaxBody  int64
	Logger   *slog.Logger
	// BodyTimeout bounds reading an invocation's body.
	BodyTimeout time.Duration
}

// Defaults fills in what the options left unset: in-memory sessions, runs
// that start in plan mode, a fresh runner, slog.Default.
func (c *Config) Defaults() {
	if c.Sessions == nil {
		c.Sessions = hosting.NewMemory()
	}
	if c.Context == nil {
		c.Context = PlanContext()
	}
	if c.Runner == nil {
		c.Runner = runner.New()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// PlanContext is agentcore.DefaultContext's function: runs start in plan
// mode, opts applied after it.
func PlanContext(opts ...helikon.ContextOption) ContextFunc {
	build := hosting.PlanContext(opts...)
	return func(_ *http.Request, session helikon.Session) (*helikon.RunContext, error) {
		return build(session), nil
	}
}
