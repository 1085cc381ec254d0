package cli

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"slices"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
)

// gate applies the sidecar's permission mode and approval list of whichever
// agent makes a call. helikon's permission mode belongs to the run and
// carries across handoffs, while the sidecar's belong to agents, so the
// run is put in [governance.PermissionDefault] and the gate, as its policy,
// decides each call by its caller's definition; a PreToolUse hook, which
// fires just before the policy is asked, tells the gate who the caller is.
type gate struct {
	f *sidecar.File
	// unset is the mode of agents that set none.
	unset string

	mu      sync.Mutex
	callers map[string]string // call id → agent, until the policy reads it
}

// runContext returns a RunContext on which every call obeys the sidecar's
// modes and approval lists; agents without a mode get unset. A call that
// needs approval waits for a decision ([helikon.RunPaused]) unless opts
// install an approval handler.
func runContext(f *sidecar.File, unset string, opts ...helikon.ContextOption) *helikon.RunContext {
	g := &gate{f: f, unset: unset, callers: map[string]string{}}
	base := []helikon.ContextOption{
		governance.WithPermissionMode(governance.PermissionDefault),
		governance.WithPermissionPolicy(g),
		helikon.WithHookRegistry(helikon.NewHookRegistry(g)),
	}
	return helikon.NewRunContext(append(base, opts...)...)
}

// OnEvent notes which agent makes each call.
func (g *gate) OnEvent(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
	if ev.Kind == helikon.PreToolUse {
		g.mu.Lock()
		g.callers[ev.CallID] = ev.Agent
		g.mu.Unlock()
	}
	return helikon.HookDecision{}
}

// Check decides a call by its caller's mode and approval list, and refuses
// one whose caller it cannot tell (fail closed).
func (g *gate) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	g.mu.Lock()
	agent, known := g.callers[req.CallID]
	delete(g.callers, req.CallID)
	g.mu.Unlock()
	def := g.f.Agents[agent]
	if !known || def == nil {
		return governance.PermissionDecision{Behavior: governance.PermissionDeny,
			Reason: fmt.Sprintf("no agent of %s is known to make call %s", g.f.Path, req.CallID)}
	}
	mode := def.Mode
	if mode == "" {
		mode = g.unset
	}
	if mode == "plan" && req.Effect != helikon.ReadOnly {
		return governance.PermissionDecision{Behavior: governance.PermissionDeny,
			Reason: fmt.Sprintf("agent %s runs in plan mode, which admits only read-only tools", agent)}
	}
	if slices.Contains(def.Ask, req.Tool) || slices.Contains(def.Ask, "*") {
		return governance.PermissionDecision{Behavior: governance.PermissionAskUser,
			Prompt: fmt.Sprintf("%s asks to call %s", agent, req.Tool)}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAllow}
}

// refuser answers every approval with a denial, for commands with no one
// to ask.
type refuser struct{ why string }

// Decide denies the call, saying why no one was asked.
func (r refuser) Decide(context.Context, helikon.PermissionRequest, string) helikon.ApprovalOutcome {
	return helikon.ApprovalOutcome{Allow: false, Reason: "it needs approval, and " + r.why}
}
