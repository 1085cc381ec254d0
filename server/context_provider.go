package server

import (
	"net/http"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/hosting"
)

// ContextProvider builds each run's [helikon.RunContext] from the request
// (headers, and whatever the [Authenticator] put on its context) and the
// run's session, which the RunContext must use. Returning an [*Error]
// rejects the run with its status.
type ContextProvider interface {
	RunContext(r *http.Request, session helikon.Session) (*helikon.RunContext, error)
}

// ContextFunc adapts a function to a [ContextProvider].
type ContextFunc func(r *http.Request, session helikon.Session) (*helikon.RunContext, error)

// RunContext calls f.
func (f ContextFunc) RunContext(r *http.Request, session helikon.Session) (*helikon.RunContext, error) {
	return f(r, session)
}

// DefaultContext is the server's default [ContextProvider], and the safe
// one for network callers: every run starts in
// [governance.PermissionPlan], which admits only tools that declare
// themselves [helikon.ReadOnly], so a request can never make an agent
// write a file, send a message or run a command. opts are applied after
// that, so an operator who has vetted the agent's tools opts in
// explicitly, for instance with
//
//	server.DefaultContext(governance.WithPermissionMode(governance.PermissionDefault),
//		helikon.WithApprovalHandler(aclApprover))
//
// Deny rules, guard rules, hooks and a run config (a timeout, a budget) go
// in opts the same way.
func DefaultContext(opts ...helikon.ContextOption) ContextProvider {
	build := hosting.PlanContext(opts...)
	return ContextFunc(func(_ *http.Request, session helikon.Session) (*helikon.RunContext, error) {
		return build(session), nil
	})
}
