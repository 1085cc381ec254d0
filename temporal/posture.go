package temporal

import (
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
)

// WorkerPosture is the governance a [Worker] applies to every tool call it
// runs. It is authoritative: the caller's RunContext never crosses to the
// worker (it is not serialisable, and a caller must not be able to loosen
// the worker's rules), so these settings, and only these, decide what a
// durable run's tools may do. The zero value is the core's defaults:
// PermissionDefault with no policy (permissive), the built-in destructive
// guards on, output redaction on.
type WorkerPosture struct {
	// Mode is the permission mode of every run.
	Mode governance.PermissionMode
	// Deny, Allow and Guards are the rule lists ([governance.WithDenyRules],
	// [governance.WithAllowRules], [governance.WithGuardRules]).
	Deny   []governance.DenyRule
	Allow  []governance.AllowRule
	Guards []governance.GuardRule
	// Policy decides calls no rule settles; Approver answers the calls it
	// puts to a human. Both run on the worker, inside the tool's activity.
	Policy   governance.PermissionPolicy
	Approver helikon.ApprovalHandler
	// WithoutDestructiveGuards turns the built-in destructive guards off.
	WithoutDestructiveGuards bool
	// WithoutRedaction turns secret redaction of tool outputs off. With it
	// on (the default), a tool's output is redacted before it is recorded
	// in Temporal's history, exactly as before it reaches the model.
	WithoutRedaction bool
	// ExtraSecrets are values redacted wherever they appear.
	ExtraSecrets []string
	// Hooks are run-level hooks; they fire inside the activities.
	Hooks *helikon.HookRegistry
}

// options returns the RunContext options that carry the posture; hooks
// says whether the run-level hooks are among them (an agent tool's
// sub-run has none, as in process).
func (p WorkerPosture) options(hooks bool) []helikon.ContextOption {
	opts := []helikon.ContextOption{governance.WithPermissionMode(p.Mode)}
	if len(p.Deny) > 0 {
		opts = append(opts, governance.WithDenyRules(p.Deny...))
	}
	if len(p.Allow) > 0 {
		opts = append(opts, governance.WithAllowRules(p.Allow...))
	}
	if len(p.Guards) > 0 {
		opts = append(opts, governance.WithGuardRules(p.Guards...))
	}
	if p.Policy != nil {
		opts = append(opts, governance.WithPermissionPolicy(p.Policy))
	}
	if p.Approver != nil {
		opts = append(opts, helikon.WithApprovalHandler(p.Approver))
	}
	if p.WithoutDestructiveGuards {
		opts = append(opts, governance.WithoutDefaultGuards())
	}
	if p.WithoutRedaction {
		opts = append(opts, governance.WithoutOutputRedaction())
	}
	if len(p.ExtraSecrets) > 0 {
		opts = append(opts, governance.WithExtraSecrets(p.ExtraSecrets...))
	}
	if hooks && p.Hooks != nil {
		opts = append(opts, helikon.WithHookRegistry(p.Hooks))
	}
	return opts
}
