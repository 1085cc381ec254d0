package helikon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// governance is the permission and redaction configuration a run carries.
// Child contexts copy it, so handoff targets and sub-agents obey the same
// mode and rules.
type governance struct {
	mode            PermissionMode
	modeErr         error
	policy          PermissionPolicy
	approval        ApprovalHandler
	deny            []DenyRule
	allow           []AllowRule
	guards          []GuardRule
	noDefaultGuards bool
	redaction       *redactor
	stateKey        []byte // signs paused run states (WithRunStateKey)
}

func defaultGovernance() governance { return governance{} }

// ErrPermissionModeLoosened reports an attempt to leave
// [PermissionBypass] for anything but [PermissionDontAsk], or to leave
// [PermissionDontAsk] at all.
var ErrPermissionModeLoosened = errors.New("helikon: permission mode may only tighten")

// checkModeChange enforces the tighten-only rule.
func checkModeChange(from, to PermissionMode) error {
	if from == to {
		return nil
	}
	if from == PermissionDontAsk || (from == PermissionBypass && to != PermissionDontAsk) {
		return fmt.Errorf("%w: %s cannot become %s", ErrPermissionModeLoosened, from, to)
	}
	return nil
}

// WithPermissionMode sets the run's permission mode. Two modes are
// one-way: on a context already in [PermissionBypass] only
// [PermissionDontAsk] is accepted, and [PermissionDontAsk] is terminal;
// the other modes may change into one another either way. A refused change keeps the
// stricter mode and makes every run on the context fail with a
// [KindConfig] error wrapping [ErrPermissionModeLoosened]; use
// [RunContext.WithPermissionMode] to get the error at once.
func WithPermissionMode(m PermissionMode) ContextOption {
	return contextOptionFunc(func(rc *RunContext) {
		if err := checkModeChange(rc.gov.mode, m); err != nil {
			rc.gov.modeErr = err
			return
		}
		rc.gov.mode = m
	})
}

// WithPermissionMode returns a copy of rc in mode m, or an error wrapping
// [ErrPermissionModeLoosened] when m would loosen Bypass or DontAsk.
func (rc *RunContext) WithPermissionMode(m PermissionMode) (*RunContext, error) {
	if err := checkModeChange(rc.gov.mode, m); err != nil {
		return nil, err
	}
	c := *rc
	c.gov.mode = m
	return &c, nil
}

// WithPermissionPolicy installs the policy consulted for calls no rule or
// mode decides.
func WithPermissionPolicy(p PermissionPolicy) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.policy = p })
}

// WithApprovalHandler installs the handler that resolves AskUser decisions
// and Ask guard rules. Without one, or when it answers Defer, the run
// pauses for a human decision ([RunPaused]).
func WithApprovalHandler(h ApprovalHandler) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.approval = h })
}

// PermissionMode returns the run's permission mode.
func (rc *RunContext) PermissionMode() PermissionMode { return rc.gov.mode }

// PermissionPolicy returns the run's policy, or nil.
func (rc *RunContext) PermissionPolicy() PermissionPolicy { return rc.gov.policy }

// ApprovalHandler returns the run's approval handler, or nil.
func (rc *RunContext) ApprovalHandler() ApprovalHandler { return rc.gov.approval }

// authorization is the permission pipeline's verdict on one call.
type authorization struct {
	allowed bool
	args    json.RawMessage // possibly replaced
	reason  string
	asked   bool // an ApprovalRequested event is due
	prompt  string
	// deferred marks a call left to a human decision after the run pauses;
	// who names the step that asked.
	deferred bool
	who      string
	// notify, when set, hears of the request just before the approver is
	// asked, so the run reports ApprovalRequested while the approver
	// decides rather than after.
	notify approvalNotifier
}

// approvalNotifier is told that a call is about to be put to the approver.
type approvalNotifier interface {
	approvalRequested(req PermissionRequest, prompt, who string)
}

// authorize runs the permission pipeline for one call, in order: deny rules
// › guard rules › allow rules › mode › policy › AskUser. Arguments a policy
// replaces pass the deny and guard rules again.
func (rc *RunContext) authorize(ctx context.Context, req PermissionRequest) authorization {
	return rc.authorizeNotify(ctx, req, nil)
}

// authorizeNotify is authorize that tells notify before asking an approver.
func (rc *RunContext) authorizeNotify(ctx context.Context, req PermissionRequest, notify approvalNotifier) authorization {
	g := &rc.gov
	var v callView
	v.read(req)
	a := authorization{args: req.Args, notify: notify}
	if !rc.screen(ctx, &v, &a) {
		return a
	}
	// An approved guard only clears the guard step.
	a.allowed, a.reason = false, ""
	if allowed(g.allow, &v) {
		a.allowed = true
		return a
	}
	switch g.mode {
	case PermissionBypass:
		a.allowed = true
		return a
	case PermissionDontAsk:
		a.reason = "permission mode dont_ask admits only calls an allow rule permits"
		return a
	case PermissionPlan:
		if req.Effect != ReadOnly {
			a.reason = "permission mode plan admits only read-only tools"
			return a
		}
	case PermissionAcceptEdits:
		if req.Effect == Write {
			a.allowed = true
			return a
		}
	}
	if g.policy == nil {
		a.allowed = true
		return a
	}
	d := g.policy.Check(ctx, rc, req)
	switch d.Behavior {
	case PermissionAllow:
		a.allowed = true
	case PermissionReplace:
		req.Args = d.Args
		a.args = d.Args
		v.read(req)
		a.allowed = rc.screen(ctx, &v, &a)
	case PermissionAskUser:
		rc.ask(ctx, req, d.Prompt, "the permission policy", &a)
	default:
		a.reason = d.Reason
		if a.reason == "" {
			a.reason = "denied by policy"
		}
	}
	return a
}

// screen runs the deny and guard steps. It reports false, with the reason
// set, when the call is refused.
func (rc *RunContext) screen(ctx context.Context, v *callView, a *authorization) bool {
	g := &rc.gov
	for _, r := range g.deny {
		if r.matches(v) {
			a.reason = "deny rule " + r.String()
			return false
		}
	}
	if v.unreadable && (len(g.deny) > 0 || len(g.guards) > 0 || !g.noDefaultGuards) {
		a.reason = "tool " + v.req.Tool + ": " + v.why
		return false
	}
	if !v.shell && !v.file && len(g.guards) == 0 {
		return true
	}
	deny, ask := guardVerdict(g.guards, !g.noDefaultGuards, v)
	if deny != nil {
		a.reason = "guard " + deny.Name
		return false
	}
	// What the matcher cannot see is asked about, never silently allowed.
	why := v.unresolved(g)
	switch {
	case ask != nil:
		prompt := "guard " + ask.Name + ": allow " + v.req.Tool + "?"
		if why != "" {
			prompt += " (the shell matcher also cannot resolve " + why + ")"
		}
		rc.ask(ctx, v.req, prompt, "guard "+ask.Name, a)
		return a.allowed
	case why != "":
		rc.ask(ctx, v.req, "the shell matcher cannot resolve "+why+": allow "+v.req.Tool+"?",
			"the shell matcher (it cannot resolve "+why+")", a)
		return a.allowed
	}
	return true
}

// ask resolves an AskUser from who through the approval handler; without
// one, or when it defers, the call waits for a human decision.
func (rc *RunContext) ask(ctx context.Context, req PermissionRequest, prompt, who string, a *authorization) {
	a.asked, a.prompt, a.who = true, prompt, who
	if a.notify != nil {
		a.notify.approvalRequested(req, prompt, who)
	}
	if rc.gov.approval == nil {
		a.allowed, a.deferred = false, true
		a.reason = who + " asks for approval"
		return
	}
	out := rc.gov.approval.Decide(ctx, req, prompt)
	if out.Defer {
		a.allowed, a.deferred = false, true
		a.reason = who + " asks for approval; the approver deferred"
		return
	}
	a.allowed, a.reason = out.Allow, out.Reason
	if !a.allowed && a.reason == "" {
		a.reason = "denied by approver"
	}
}
