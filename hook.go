package helikon

import (
	"cmp"
	"context"
	"encoding/json"
)

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
func (r *HookRegistry) Len() int { return len(r.All()) }

// fireHooks runs agent-level hooks, then run-level ones, and folds their
// decisions: the first Deny short-circuits, ReplaceInput and ReplaceOutput
// are last-writer-wins, InjectSystemMessage accumulates in fire order. The
// event escapes to the hooks: a hot path checks hooked first, so that a run
// without hooks builds none.
func fireHooks(ctx context.Context, rc *RunContext, agentHooks []Hook, ev *HookEvent) hookFold {
	var f hookFold
	if !hooked(rc, agentHooks) {
		return f
	}
	for _, list := range [2][]Hook{agentHooks, rc.hooks.All()} {
		for _, h := range list {
			d := h.OnEvent(ctx, rc, ev)
			switch d.Action {
			case HookDeny:
				f.denied = true
				f.reason = cmp.Or(d.Reason, "denied by hook")
				return f
			case HookReplaceInput:
				f.input = d.Value
			case HookReplaceOutput:
				f.output = d.Value
			case HookInjectSystemMessage:
				f.inject = append(f.inject, d.Message)
			}
		}
	}
	return f
}

type hookFold struct {
	denied bool
	reason string
	input  []byte
	output []byte
	inject []string
}

func hooked(rc *RunContext, agentHooks []Hook) bool {
	return len(agentHooks) > 0 || rc.hooks.Len() > 0
}
