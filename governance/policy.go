package governance

import (
	"context"
	"encoding/json"

	"github.com/paigasus/helikon"
)

// PermissionBehavior is the verdict of a [PermissionDecision].
type PermissionBehavior int

// The permission behaviours.
const (
	PermissionAllow PermissionBehavior = iota
	PermissionDeny
	PermissionAskUser
	PermissionReplace
)

// PermissionDecision is a [PermissionPolicy]'s verdict on one call.
type PermissionDecision struct {
	Behavior PermissionBehavior
	// Reason explains a denial.
	Reason string
	// Prompt is shown to the approver for AskUser.
	Prompt string
	// Args replaces the call's arguments for Replace.
	Args json.RawMessage
}

// PermissionPolicy authorises tool calls (the canUseTool seam). The
// pipeline consults it for the calls no rule or mode decides; a plain
// function becomes one with [PolicyFunc].
type PermissionPolicy interface {
	Check(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision
}

// PolicyFunc adapts a function to a [PermissionPolicy], as
// http.HandlerFunc adapts one to an http.Handler:
//
//	governance.WithPermissionPolicy(governance.PolicyFunc(
//		func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
//			if req.Tool == "Bash" {
//				return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "Run this command?"}
//			}
//			return governance.PermissionDecision{Behavior: governance.PermissionAllow}
//		}))
type PolicyFunc func(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision

// Check calls f(ctx, rc, req).
func (f PolicyFunc) Check(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision {
	return f(ctx, rc, req)
}

// WithPermissionPolicy installs the policy consulted for calls no rule or
// mode decides.
func WithPermissionPolicy(p PermissionPolicy) helikon.ContextOption {
	return refine(func(s *settings) error { s.policy = p; return nil })
}
