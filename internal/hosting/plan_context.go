package hosting

import (
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
)

// PlanContext returns the builder of the hosts' default RunContext: it
// starts in [governance.PermissionPlan], which admits only tools that declare
// themselves [helikon.ReadOnly], applies opts after that (so an operator
// opts in to more explicitly), and runs on the request's session, which no
// option can replace.
func PlanContext(opts ...helikon.ContextOption) func(session helikon.Session) *helikon.RunContext {
	base := append([]helikon.ContextOption{governance.WithPermissionMode(governance.PermissionPlan)}, opts...)
	return func(session helikon.Session) *helikon.RunContext {
		all := append(base[:len(base):len(base)], helikon.WithSession(session))
		return helikon.NewRunContext(all...)
	}
}
