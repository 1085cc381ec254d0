package helikon

import (
	"context"
	"encoding/json"
)

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

// GuardrailInputKind says which side of the agent a guardrail checks.
type GuardrailInputKind int

// The guardrail inputs.
const (
	GuardUserText GuardrailInputKind = iota
	GuardModelOutput
)

// GuardrailInput is the text a [Guardrail] checks.
type GuardrailInput struct {
	Kind GuardrailInputKind
	Text string
}

// GuardrailKind classifies a tripwire.
type GuardrailKind string

// The guardrail kinds.
const (
	GuardrailInputPolicy  GuardrailKind = "input_policy"
	GuardrailOutputPolicy GuardrailKind = "output_policy"
	GuardrailOther        GuardrailKind = "other"
)

// Tripwire is a guardrail's verdict that halts the run.
type Tripwire struct {
	Kind   GuardrailKind `json:"kind"`
	Reason string        `json:"reason,omitempty"` // for Other, the failure
	Info   any           `json:"info,omitempty"`   // free-form detail
}

// Guardrail checks text entering or leaving an agent: nil passes, a
// [Tripwire] halts the run, and so does an error (a tripwire of kind Other).
type Guardrail interface {
	Check(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error)
}

// GuardrailFunc adapts a function to [Guardrail].
type GuardrailFunc func(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error)

// Check calls f.
func (f GuardrailFunc) Check(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error) {
	return f(ctx, rc, in)
}

// HookKind names a lifecycle point.
type HookKind int

// The hook points.
const (
	OnRunStart HookKind = iota
	OnTurnStart
	PreToolUse
	PostToolUse
	OnHandoff
	OnRunComplete
	OnSubagentStop
)

// HookEvent is what a [Hook] observes; Kind says which fields are set.
// Agent names the agent whose loop fires the event (for OnSubagentStop, the
// nested agent that stopped, and From the one that started it); Turn is set
// for OnTurnStart; Tool, CallID, Args for PreToolUse and PostToolUse, and
// Output for PostToolUse; From and To for OnHandoff.
type HookEvent struct {
	Kind   HookKind
	Agent  string
	Turn   int
	Tool   string
	CallID string
	Args   json.RawMessage
	Output ToolOutput
	From   string
	To     string
}

// HookAction is what a [HookDecision] asks for.
type HookAction int

// The hook actions. The zero value allows.
const (
	HookAllow HookAction = iota
	HookDeny
	HookReplaceInput
	HookReplaceOutput
	HookInjectSystemMessage
)

// HookDecision is a hook's answer. The zero value is Allow.
type HookDecision struct {
	Action HookAction
	// Reason explains a Deny; it is shown to the model.
	Reason string
	// Value replaces the input (PreToolUse args) or output (PostToolUse).
	Value json.RawMessage
	// Message is the system message to inject into the next model call.
	Message string
}

// Hook observes lifecycle events and may steer the run.
type Hook interface {
	OnEvent(ctx context.Context, rc *RunContext, ev *HookEvent) HookDecision
}

// HookFunc adapts a function to [Hook].
type HookFunc func(ctx context.Context, rc *RunContext, ev *HookEvent) HookDecision

// OnEvent calls f.
func (f HookFunc) OnEvent(ctx context.Context, rc *RunContext, ev *HookEvent) HookDecision {
	return f(ctx, rc, ev)
}

// HookRegistry holds run-level hooks. It is shared by every context derived
// from the run, so hooks see handoffs and sub-agents too.
type HookRegistry struct {
	hooks []Hook
}

// NewHookRegistry returns a registry holding hooks.
func NewHookRegistry(hooks ...Hook) *HookRegistry { return &HookRegistry{hooks: hooks} }

// Push appends a hook. Push is not safe to call while a run uses the registry.
func (r *HookRegistry) Push(h Hook) { r.hooks = append(r.hooks, h) }

// All returns the hooks in registration order.
func (r *HookRegistry) All() []Hook {
	if r == nil {
		return nil
	}
	return r.hooks
}

// Len returns the number of hooks.
func (r *HookRegistry) Len() int {
	if r == nil {
		return 0
	}
	return len(r.hooks)
}
