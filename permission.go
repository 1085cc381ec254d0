package helikon

import (
	"context"
	"encoding/json"
)

// governance is the permission configuration a run carries.
type governance struct {
	mode     PermissionMode
	policy   PermissionPolicy
	approval ApprovalHandler
}

func defaultGovernance() governance { return governance{} }

// WithPermissionMode sets the run's permission mode.
func WithPermissionMode(m PermissionMode) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.mode = m })
}

// WithPermissionPolicy installs the policy consulted for calls no rule or
// mode decides.
func WithPermissionPolicy(p PermissionPolicy) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.policy = p })
}

// WithApprovalHandler installs the handler that resolves AskUser decisions.
// Without one, AskUser resolves to deny.
func WithApprovalHandler(h ApprovalHandler) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.approval = h })
}

// PermissionMode returns the run's permission mode.
func (rc *RunContext) PermissionMode() PermissionMode { return rc.gov.mode }

// authorization is the permission pipeline's verdict on one call.
type authorization struct {
	allowed bool
	args    json.RawMessage // possibly replaced
	reason  string
	asked   bool // an ApprovalRequested event is due
	prompt  string
}

// authorize runs the permission pipeline for one call: mode › policy ›
// AskUser.
func (rc *RunContext) authorize(ctx context.Context, req PermissionRequest) authorization {
	g := &rc.gov
	switch g.mode {
	case PermissionBypass:
		return authorization{allowed: true, args: req.Args}
	case PermissionDontAsk:
		return authorization{reason: "permission mode dont_ask admits only allow-listed tools"}
	case PermissionPlan:
		if req.Effect != ReadOnly {
			return authorization{reason: "permission mode plan admits only read-only tools"}
		}
	case PermissionAcceptEdits:
		if req.Effect == Write {
			return authorization{allowed: true, args: req.Args}
		}
	}
	if g.policy == nil {
		return authorization{allowed: true, args: req.Args}
	}
	d := g.policy.Check(ctx, rc, req)
	switch d.Behavior {
	case PermissionAllow:
		return authorization{allowed: true, args: req.Args}
	case PermissionReplace:
		return authorization{allowed: true, args: d.Args}
	case PermissionAskUser:
		a := authorization{asked: true, prompt: d.Prompt, args: req.Args}
		if g.approval == nil {
			a.reason = "approval required and no approval handler is installed"
			return a
		}
		out := g.approval.Decide(ctx, req, d.Prompt)
		a.allowed = out.Allow
		a.reason = out.Reason
		if !a.allowed && a.reason == "" {
			a.reason = "denied by approver"
		}
		return a
	default:
		reason := d.Reason
		if reason == "" {
			reason = "denied by policy"
		}
		return authorization{reason: reason}
	}
}

// redact is the last transform on tool output before it reaches the model.
func (rc *RunContext) redact(out ToolOutput) ToolOutput { return out }
