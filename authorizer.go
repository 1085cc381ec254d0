package helikon

import (
	"context"
	"encoding/json"

	"github.com/paigasus/helikon/internal/coredefault"
)

// Authorizer decides whether a tool call may run: the seam a governance
// package (this module's governance) plugs into the loop, asked once per
// call, after the PreToolUse hooks and before the tool runs.
//
// Authorize returns the [Verdict] on req. To put the call to a human it
// asks through ask (the run's [ApprovalHandler], or without one a pause) and
// returns that answer, or goes on deciding when it cleared only one step.
type Authorizer interface {
	Authorize(ctx context.Context, rc *RunContext, req PermissionRequest, ask Asker) Verdict
}

// Verdict is an [Authorizer]'s answer on one call.
type Verdict struct {
	Allowed bool
	// Args are the arguments the call runs with; nil keeps the call's own.
	Args json.RawMessage
	// Reason says why a call may not run; the model sees it.
	Reason string
	// Deferred leaves the call to a human decision after the run pauses.
	Deferred bool
}

// Asker puts a tool call to the run's approver: prompt is the question,
// askedBy who asks ("guard git-force-push"). The answer allows the call,
// refuses it with a reason, or defers it.
type Asker interface {
	Ask(ctx context.Context, req PermissionRequest, prompt, askedBy string) Verdict
}

// PermissionRequest describes a tool call awaiting authorisation.
type PermissionRequest struct {
	Tool   string
	CallID string
	Args   json.RawMessage
	Effect ToolEffect
	Impl   Tool // the called tool, when the loop knows it
	// Approved reports that a human already approved the call with these
	// arguments (a [DecisionApproveWithArgs]): only what no human may
	// override applies, and an ask is answered by the decision itself.
	Approved bool
}

// ApprovalOutcome is an [ApprovalHandler]'s answer. Defer leaves the call
// to a later human decision: the run pauses ([RunPaused]).
type ApprovalOutcome struct {
	Allow  bool
	Reason string
	Defer  bool
}

// ApprovalHandler answers an [Authorizer]'s question out of band (a human
// prompted); it cannot ask again.
type ApprovalHandler interface {
	Decide(ctx context.Context, req PermissionRequest, prompt string) ApprovalOutcome
}

// Granter is an [Authorizer] that honours the rule an "always" decision
// grants ([DecisionAlways]), a string in the form its own allow rules print,
// which the run ([RunContext.Grants]) and its paused states keep. Without a
// Granter, an "always" decision is refused with [ErrInvalidDecision].
type Granter interface {
	// CheckGrant reports an error for a rule it cannot read.
	CheckGrant(rule string) error
	// Granted reports whether rules, taken together, allow req.
	Granted(rules []string, req PermissionRequest) bool
}

// Recaller is an [Authorizer] that learns from the tool calls a
// conversation already made (the governance package rebuilds from them the
// record of files a run wrote, which a resumed or later run would otherwise
// lack). The loop calls Recall as a run starts or resumes, before it
// authorizes any call, with the conversation the run continues and the
// agent's tools, from which the recaller reads what each call did.
type Recaller interface {
	Recall(ctx context.Context, rc *RunContext, conversation []Item, tools []Tool)
}

// Redactor scrubs secrets from what leaves a tool for the model, the
// stream, the session or the logs: its output, and the texts the loop
// derives from a call (an error, a panic value, a denial reason, the
// arguments of an approval request).
type Redactor interface {
	RedactOutput(out ToolOutput) ToolOutput
	RedactText(s string) string
}

// WithAuthorizer makes a decide whether the run's tool calls may run,
// replacing any authorizer the context had.
func WithAuthorizer(a Authorizer) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().auth = a })
}

// WithAuthorizerFrom replaces the context's authorizer with what f makes
// of it (prev may be nil), so a governance package's options refine one
// another. An error from f keeps the previous authorizer and fails every
// run on the context with a [KindConfig] error wrapping it.
func WithAuthorizerFrom(f func(prev Authorizer) (Authorizer, error)) ContextOption {
	return contextOptionFunc(func(rc *RunContext) {
		a, err := f(rc.settings().auth)
		if err != nil {
			rc.setting().optErr = err
			return
		}
		rc.setting().auth = a
	})
}

// WithRedactor makes r scrub what leaves the run's tools, replacing any
// redactor the context had; nil turns redaction off.
func WithRedactor(r Redactor) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().redactor = r })
}

// WithRedactorFrom replaces the context's redactor with what f makes of it
// (prev is nil when the context has none).
func WithRedactorFrom(f func(prev Redactor) Redactor) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().redactor = f(rc.settings().redactor) })
}

// WithGrants adds allow rules "always" decisions granted, as the run's
// [Granter] reads them; handoff targets and sub-agents inherit them.
func WithGrants(rules ...string) ContextOption {
	return contextOptionFunc(func(rc *RunContext) {
		s := rc.setting()
		s.grants = append(s.grants[:len(s.grants):len(s.grants)], rules...)
	})
}

// WithApprovalHandler installs the handler that answers an [Authorizer]'s
// questions. Without one, or when it answers Defer, the run pauses for a
// human decision ([RunPaused]).
func WithApprovalHandler(h ApprovalHandler) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().approval = h })
}

// Authorizer returns the run's authorizer, or nil when every call may run.
func (rc *RunContext) Authorizer() Authorizer { return rc.settings().auth }

// Redactor returns the run's redactor, or nil when nothing is redacted.
func (rc *RunContext) Redactor() Redactor { return rc.settings().redactor }

// Grants returns the allow rules "always" decisions granted the run.
func (rc *RunContext) Grants() []string { return rc.settings().grants }

// ApprovalHandler returns the run's approval handler, or nil.
func (rc *RunContext) ApprovalHandler() ApprovalHandler { return rc.settings().approval }

// authorize asks the run's authorizer about req, with ask putting
// questions to the approver; without an authorizer every call runs.
func (rc *RunContext) authorize(ctx context.Context, req PermissionRequest, ask Asker) Verdict {
	auth := rc.settings().auth
	if auth == nil {
		return Verdict{Allowed: true}
	}
	return auth.Authorize(ctx, rc, req, ask)
}

func (rc *RunContext) recall(ctx context.Context, conv []Item, tools []Tool) {
	if r, ok := rc.settings().auth.(Recaller); ok {
		r.Recall(ctx, rc, conv, tools)
	}
}

func (rc *RunContext) redact(out ToolOutput) ToolOutput {
	r := rc.settings().redactor
	if r == nil {
		return out
	}
	return r.RedactOutput(out)
}

func (rc *RunContext) redactText(s string) string {
	r := rc.settings().redactor
	if r == nil {
		return s
	}
	return r.RedactText(s)
}

// askHandler answers a question with the run's approval handler; without
// one, or when it defers, the call waits for a human decision.
func (rc *RunContext) askHandler(ctx context.Context, req PermissionRequest, prompt, who string) Verdict {
	approval := rc.settings().approval
	if approval == nil {
		return Verdict{Deferred: true, Reason: who + " asks for approval"}
	}
	out := approval.Decide(ctx, req, prompt)
	if out.Defer {
		return Verdict{Deferred: true, Reason: who + " asks for approval; the approver deferred"}
	}
	v := Verdict{Allowed: out.Allow, Reason: out.Reason}
	if !v.Allowed && v.Reason == "" {
		v.Reason = "denied by approver"
	}
	return v
}

// defaultAuthorizer and defaultRedactor serve a context that sets none:
// the governance package's defaults when the program links it.
func defaultAuthorizer() Authorizer {
	a, _ := coredefault.Authorizer.(Authorizer)
	return a
}

func defaultRedactor() Redactor {
	r, _ := coredefault.Redactor.(Redactor)
	return r
}
