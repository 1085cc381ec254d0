package governance

import (
	"context"
	"encoding/json"

	"github.com/paigasus/helikon"
	// The tests read command lines as a program with tools/bash does.
	_ "github.com/paigasus/helikon/governance/shellsyntax"
)

// authorization is the pipeline's verdict with what the approver was
// asked, as the tests read it.
type authorization struct {
	allowed, asked, deferred bool
	reason, prompt, who      string
	args                     json.RawMessage
}

// recorder asks the run's approval handler as the loop does, and notes
// the question.
type recorder struct {
	rc *helikon.RunContext
	authorization
}

func (r *recorder) Ask(ctx context.Context, req helikon.PermissionRequest, prompt, who string) helikon.Verdict {
	r.asked, r.prompt, r.who = true, prompt, who
	h := r.rc.ApprovalHandler()
	if h == nil {
		return helikon.Verdict{Deferred: true, Reason: who + " asks for approval"}
	}
	out := h.Decide(ctx, req, prompt)
	if out.Defer {
		return helikon.Verdict{Deferred: true, Reason: who + " asks for approval; the approver deferred"}
	}
	v := helikon.Verdict{Allowed: out.Allow, Reason: out.Reason}
	if !v.Allowed && v.Reason == "" {
		v.Reason = "denied by approver"
	}
	return v
}

// redactOf redacts out with rc's redactor, as the loop does.
func redactOf(rc *helikon.RunContext, out helikon.ToolOutput) helikon.ToolOutput {
	if r := rc.Redactor(); r != nil {
		return r.RedactOutput(out)
	}
	return out
}

// redactTextOf redacts s with rc's redactor, as the loop does.
func redactTextOf(rc *helikon.RunContext, s string) string {
	if r := rc.Redactor(); r != nil {
		return r.RedactText(s)
	}
	return s
}

// authorize runs rc's permission pipeline on req.
func authorize(rc *helikon.RunContext, ctx context.Context, req helikon.PermissionRequest) authorization {
	r := &recorder{rc: rc}
	v := rc.Authorizer().Authorize(ctx, rc, req, r)
	a := r.authorization
	a.allowed, a.deferred, a.reason, a.args = v.Allowed, v.Deferred, v.Reason, v.Args
	return a
}
