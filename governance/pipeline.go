package governance

import (
	"context"
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/coredefault"
)

// settings is the permission configuration a run carries: the
// [helikon.Authorizer] this package installs. Child contexts copy it, so
// handoff targets and sub-agents obey the same mode and rules. The options
// of this package refine the one the context has, copy on write.
type settings struct {
	mode            PermissionMode
	policy          PermissionPolicy
	deny            []DenyRule
	allow           []AllowRule
	guards          []GuardRule
	noDefaultGuards bool
	// written, when set, is the run's record of the files it wrote, for
	// the guard of WithWrittenFileGuard; copies of the settings share it.
	written writtenGuard
}

// defaults is the authorizer of a context no option of this package
// touched: default mode, no policy, the default guards on.
var defaults = &settings{}

func init() {
	coredefault.Authorizer = helikon.Authorizer(defaults)
	coredefault.Redactor = helikon.Redactor(defaultRedactor)
	coredefault.CheckTool = func(agent string, t any) {
		if tool, ok := t.(helikon.Tool); ok {
			warnUndeclaredShell(agent, tool)
		}
	}
}

// ErrForeignAuthorizer reports an option of this package applied to a
// context whose authorizer is not this package's (one set with
// [helikon.WithAuthorizer]): the option cannot refine it, and every run on
// the context fails rather than run without the rule.
var ErrForeignAuthorizer = errors.New("governance: the context's authorizer is not this package's")

// refine returns the option that applies f to a copy of the context's
// settings.
func refine(f func(s *settings) error) helikon.ContextOption {
	return helikon.WithAuthorizerFrom(func(prev helikon.Authorizer) (helikon.Authorizer, error) {
		var s settings
		switch p := prev.(type) {
		case nil:
		case *settings:
			s = *p
		default:
			return nil, fmt.Errorf("%w: %T", ErrForeignAuthorizer, prev)
		}
		if err := f(&s); err != nil {
			return nil, err
		}
		return &s, nil
	})
}

// of returns the settings of the run behind c, or nil when its authorizer
// is not this package's.
func of(c interface{ Authorizer() helikon.Authorizer }) *settings {
	s, _ := c.Authorizer().(*settings)
	return s
}

// Authorize runs the permission pipeline for one call, in order: deny
// rules › guard rules › allow rules › mode › policy › AskUser. Arguments a
// policy replaces pass the deny and guard rules again. A call a human
// already approved with its arguments ([helikon.PermissionRequest].Approved)
// passes the deny and guard rules only.
func (g *settings) Authorize(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest, ask helikon.Asker) helikon.Verdict {
	var v callView
	v.read(req)
	a := g.authorize(ctx, rc, &v, ask)
	if g.written != nil {
		g.written.done(v, a.Allowed)
	}
	return a
}

// authorize is Authorize on the call v reads; v ends holding the call as
// it will run (with a policy's replaced arguments).
func (g *settings) authorize(ctx context.Context, rc *helikon.RunContext, v *callView, ask helikon.Asker) helikon.Verdict {
	req := v.req
	a := helikon.Verdict{Args: req.Args}
	if !g.screen(ctx, v, &a, ask) {
		return a
	}
	if req.Approved {
		a.Allowed, a.Reason = true, ""
		return a
	}
	// An approved guard only clears the guard step.
	a.Allowed, a.Reason = false, ""
	if allowed(g.allow, v) || g.grantsAllow(rc, v) {
		a.Allowed = true
		return a
	}
	// A shell call is judged by what a command line may do, not by the
	// effect its tool declares: a Bash tool declared Write or ReadOnly
	// would otherwise run anything under accept-edits or plan.
	effect := req.Effect
	if v.shell {
		effect = helikon.SideEffect
	}
	switch g.mode {
	case PermissionBypass:
		a.Allowed = true
		return a
	case PermissionDontAsk:
		a.Reason = "permission mode dont_ask admits only calls an allow rule permits"
		return a
	case PermissionPlan:
		if effect != helikon.ReadOnly {
			a.Reason = "permission mode plan admits only read-only tools"
			return a
		}
	case PermissionAcceptEdits:
		if effect == helikon.Write {
			a.Allowed = true
			return a
		}
	}
	if g.policy == nil {
		// Only the default mode is permissive without a policy: under
		// accept-edits, what is neither an edit nor a read (a shell
		// command, which may write anywhere) is put to the approver.
		if g.mode == PermissionAcceptEdits && effect != helikon.ReadOnly {
			g.ask(ctx, ask, req, "permission mode accept_edits: allow "+req.Tool+"?", "permission mode accept_edits", &a)
			return a
		}
		a.Allowed = true
		return a
	}
	d := g.policy.Check(ctx, rc, req)
	switch d.Behavior {
	case PermissionAllow:
		a.Allowed = true
	case PermissionReplace:
		req.Args = d.Args
		a.Args = d.Args
		pending := v.pending
		v.read(req)
		v.pending = pending
		a.Allowed = g.screen(ctx, v, &a, ask)
	case PermissionAskUser:
		g.ask(ctx, ask, req, d.Prompt, "the permission policy", &a)
	default:
		a.Reason = d.Reason
		if a.Reason == "" {
			a.Reason = "denied by policy"
		}
	}
	return a
}

// grantsAllow reports whether the allow rules "always" decisions granted
// the run, with the configured ones, allow the call.
func (g *settings) grantsAllow(rc *helikon.RunContext, v *callView) bool {
	grants := rc.Grants()
	if len(grants) == 0 {
		return false
	}
	rules := append(make([]AllowRule, 0, len(g.allow)+len(grants)), g.allow...)
	for _, s := range grants {
		if r, err := ParseAllowRule(s); err == nil {
			rules = append(rules, r)
		}
	}
	return allowed(rules, v)
}

// CheckGrant implements [helikon.Granter]: rule must be an allow rule in
// the form [ParseAllowRule] reads.
func (g *settings) CheckGrant(rule string) error {
	_, err := ParseAllowRule(rule)
	return err
}

// Granted implements [helikon.Granter]: the rules together allow req.
func (g *settings) Granted(rules []string, req helikon.PermissionRequest) bool {
	parsed := make([]AllowRule, 0, len(rules))
	for _, s := range rules {
		if r, err := ParseAllowRule(s); err == nil {
			parsed = append(parsed, r)
		}
	}
	if len(parsed) == 0 {
		return false
	}
	var v callView
	v.read(req)
	return allowed(parsed, &v)
}

// screen runs the deny and guard steps. It reports false, with the reason
// set, when the call is refused.
func (g *settings) screen(ctx context.Context, v *callView, a *helikon.Verdict, ask helikon.Asker) bool {
	for _, r := range g.deny {
		if r.matches(v) {
			a.Reason = "deny rule " + r.String()
			return false
		}
	}
	if v.unreadable && (len(g.deny) > 0 || len(g.guards) > 0 || !g.noDefaultGuards) {
		a.Reason = "tool " + v.req.Tool + ": " + v.why
		return false
	}
	if !v.shell && !v.file && len(g.guards) == 0 {
		return true
	}
	deny, askRule := guardVerdict(g.guards, !g.noDefaultGuards, v)
	if deny != nil {
		a.Reason = "guard " + deny.Name
		return false
	}
	if g.written != nil {
		// Every call is noted in flight, also one another guard asks
		// about; that guard's question comes first.
		runs, pending := g.written.runs(*v)
		v.pending = pending
		if runs != "" && askRule == nil {
			g.ask(ctx, ask, v.req, "guard "+GuardRunWrittenFile+": allow "+v.req.Tool+"? ("+runs+")", "guard "+GuardRunWrittenFile, a)
			return a.Allowed
		}
	}
	// What the matcher cannot see is asked about, never silently allowed.
	why := v.unresolved(g)
	switch {
	case askRule != nil:
		prompt := "guard " + askRule.Name + ": allow " + v.req.Tool + "?"
		if why != "" {
			prompt += " (the shell matcher also cannot resolve " + why + ")"
		}
		g.ask(ctx, ask, v.req, prompt, "guard "+askRule.Name, a)
		return a.Allowed
	case why != "":
		g.ask(ctx, ask, v.req, "the shell matcher cannot resolve "+why+": allow "+v.req.Tool+"?",
			"the shell matcher (it cannot resolve "+why+")", a)
		return a.Allowed
	}
	return true
}

// ask puts the call to the approver through ask and records the answer in
// a, keeping its arguments.
func (g *settings) ask(ctx context.Context, ask helikon.Asker, req helikon.PermissionRequest, prompt, who string, a *helikon.Verdict) {
	ans := ask.Ask(ctx, req, prompt, who)
	a.Allowed, a.Reason, a.Deferred = ans.Allowed, ans.Reason, ans.Deferred
}
