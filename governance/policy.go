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

// PermissionPolicy authorises tool calls (the canUseTool seam).
type PermissionPolicy interface {
	Check(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision
}

// WithPermissionPolicy installs the policy consulted for calls no rule or
// mode decides.
func WithPermissionPolicy(p PermissionPolicy) helikon.ContextOption {
	return refine(func(s *settings) error { s.policy = p; return nil })
}
