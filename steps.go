package helikon

import (
	"context"
	"encoding/json"
)

// Steps is an LLM agent's loop taken apart into its side effects, for a
// runner that drives [Transition] itself, such as a durable runner that runs
// every model turn and tool call as its own retryable unit of work. Each
// step goes through the code the in-process loop runs (hooks, permissions,
// approvals, redaction), so both runs of an agent behave alike. A Steps is
// cheap; build one per step with [LLMAgent.Steps]. It opens no agent span
// and meters no budget: the runner driving it owns the run.
type Steps struct {
	d *driver
	// defers chooses the agent tools whose sub-runs the runner runs
	// itself (see [Steps.DeferSubRuns]).
	defers func(*AgentTool) bool
}

// Steps returns the side-effect steps of a's loop under rc (nil: an
// [Ephemeral] context).
func (a *LLMAgent) Steps(rc *RunContext) *Steps {
	return &Steps{d: a.newDriver(orEphemeral(rc))}
}

// TransitionCtx returns the context [Transition] needs for the agent's
// loop: its tools, settings, turn budget, output type and handoffs. System
// and Conversation are left for the runner to fill.
func (s *Steps) TransitionCtx() TransitionCtx { return s.d.tc }

// ParallelToolCalls returns the run's bound on concurrently running tool
// calls (0: unbounded).
func (s *Steps) ParallelToolCalls() int { return s.d.cfg.ParallelToolCalls }

// Start checks what the in-process loop checks before its first turn: the
// permission configuration, the nesting depth, the input guardrails (as
// with [WithBlockingInputGuardrails]) and the OnRunStart hooks. A nil
// failure means the run may start, inject holding the system messages the
// hooks asked for; a failure is the events the run ends with.
func (s *Steps) Start(ctx context.Context, input []Item) (inject []string, failure []Event) {
	d := s.d
	if d.rc.depth > d.depthLimit {
		return nil, []Event{RunFailed{At: now(), Err: agentErrorf(KindMaxAgentDepthExceeded, d.a.name, "depth %d exceeds %d", d.rc.depth, d.depthLimit)}}
	}
	if err := d.rc.settings().optErr; err != nil {
		return nil, []Event{RunFailed{At: now(), Err: &AgentError{Kind: KindConfig, Agent: d.a.name, Message: err.Error(), Err: err}}}
	}
	if len(d.a.inputGuards) > 0 && !d.checkInput(ctx, input, collectInto(&failure)) {
		return nil, failure
	}
	f := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnRunStart, Agent: d.a.name})
	if f.denied {
		return nil, []Event{RunFailed{At: now(), Err: &AgentError{Kind: KindHook, Agent: d.a.name, Message: f.reason}}}
	}
	return f.inject, nil
}

// RenderSystem renders the agent's instructions into the system items sent
// ahead of the conversation.
func (s *Steps) RenderSystem(ctx context.Context) ([]Item, error) {
	if err := s.d.renderSystem(ctx); err != nil {
		return nil, err
	}
	return s.d.tc.System, nil
}

// CallModel runs the model turn of turn: the OnTurnStart hooks, then the
// model on req with inject (what hooks asked for that the model has not
// seen) appended as system messages, streaming the raw deltas to emit (nil:
// dropped). It returns the settled [ModelResponse], or an [Abort] for a
// model failure, a cancellation or a hook's denial.
func (s *Steps) CallModel(ctx context.Context, turn int, req *ModelRequest, inject []string, emit func(Event)) TransitionInput {
	s.d.injections = inject
	yield := func(ev Event) bool {
		if emit != nil {
			emit(ev)
		}
		return true
	}
	in, _ := s.d.callModel(ctx, CallingModel{Progress{Turn: turn}}, req, yield)
	return in
}

// ToolStep is the settled outcome of one tool call run by [Steps.CallTool].
type ToolStep struct {
	Result ToolResult `json:"result"`
	// Events are the call's events (ApprovalRequested, PermissionDenied, an
	// agent tool's [SubRunEvent]s), in order.
	Events []Event  `json:"-"`
	Inject []string `json:"inject,omitempty"` // the hooks' system messages for the next model call
	// Pending is set, and Result empty, when the call waits for a human
	// decision; [Steps.CallDecided] runs it once decided, with PendingArgs.
	Pending     *PendingApproval `json:"pending,omitempty"`
	PendingArgs json.RawMessage  `json:"pending_args,omitempty"`
	// Usage is what the runs the call started (an agent tool's) spent.
	Usage Usage `json:"usage"`
	// SubRun is set, and Result empty, when the call is an agent tool's
	// whose sub-run the runner runs itself ([Steps.DeferSubRuns]).
	SubRun *SubRun `json:"sub_run,omitempty"`
}

// CallTool runs one tool call through the layers the loop runs it through:
// PreToolUse hooks, the permission pipeline (and the approver), the tool,
// PostToolUse hooks and redaction. A tool's failure is data in the result.
func (s *Steps) CallTool(ctx context.Context, call ToolCall) ToolStep {
	var out callOutcome
	// The runs the tool starts report to a sink of the step's own, as they
	// report to the run's in the loop.
	sink := &usageSink{}
	s.d.runCall(&sinkContext{Context: s.deferring(ctx), sink: sink}, call, &out)
	return s.settled(call, &out, sink)
}

func (s *Steps) settled(call ToolCall, out *callOutcome, sink *usageSink) ToolStep {
	st := ToolStep{Result: out.result, Events: out.events, Inject: s.d.injections, Usage: sink.sum()}
	if out.deferred != nil {
		st.Result, st.SubRun = ToolResult{}, out.deferred
		return st
	}
	if p := out.paused; p != nil {
		if p.Status != callPending || p.Approval == nil {
			// An agent tool whose own run paused: its frame lives in this
			// process only, so a step cannot carry it.
			st.Result = errorResult(call, "tool "+call.Name+" paused a nested run for approval, which a step-driven run cannot resume")
			return st
		}
		pending := *p.Approval
		if len(pending.Path) == 0 {
			pending.Path = []string{s.d.a.name}
		}
		st.Result, st.Pending, st.PendingArgs = ToolResult{}, &pending, p.Args
	}
	return st
}

// CheckDecisions checks decisions against the pending approvals as
// [Resume] does under rc (nil: [Ephemeral]) and returns the allow rules the
// "always" decisions grant.
func CheckDecisions(rc *RunContext, pending []PendingApproval, decisions []Decision) ([]string, error) {
	ds, err := newDecisionSet(orEphemeral(rc), &RunState{Pending: pending}, decisions)
	if err != nil {
		return nil, err
	}
	return ds.grants, nil
}

// CallDecided runs a call that waited for a human with the human's
// decision, as a resumed run does: approved, it runs with args (the
// pending step's PendingArgs) or the decision's replaced arguments, which
// pass the deny and guard rules again; rejected, the model sees the
// rejection. Check dec with [CheckDecisions] first.
func (s *Steps) CallDecided(ctx context.Context, call ToolCall, pending PendingApproval, args json.RawMessage, dec Decision) ToolStep {
	ds, err := newDecisionSet(s.d.rc, &RunState{Pending: []PendingApproval{pending}}, []Decision{dec})
	if err != nil {
		return ToolStep{Result: errorResult(call, err.Error())}
	}
	s.d.paused.ds = ds
	s.d.paused.memo = map[string]*frameCall{call.CallID: {CallID: call.CallID, Name: call.Name, Status: callPending, Args: args, Approval: &pending}}
	return s.CallTool(ctx, call)
}

// Hook fires the agent's and the run's hooks for ev, as a runner does for
// the lifecycle events it drives itself (OnHandoff, OnSubagentStop,
// OnRunComplete), and returns their folded decision.
func (s *Steps) Hook(ctx context.Context, ev *HookEvent) (denied bool, reason string, inject []string) {
	f := fireHooks(ctx, s.d.rc, s.d.a.hooks, ev)
	return f.denied, f.reason, f.inject
}

// Finish runs what the in-process loop runs when the model has answered:
// the output guardrails (skipped when handedOff, as for a run a handoff
// target finished) and the OnRunComplete hooks. A non-nil failure is the
// events the run ends with instead of RunCompleted.
func (s *Steps) Finish(ctx context.Context, output string, handedOff bool) (failure []Event) {
	d := s.d
	if !handedOff && len(d.a.outputGuards) > 0 && !d.checkOutput(ctx, output, collectInto(&failure)) {
		return failure
	}
	fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnRunComplete, Agent: d.a.name})
	return nil
}

// Handoff returns the handoff of the agent to target, or nil.
func (s *Steps) Handoff(target string) *Handoff { return s.d.a.handoffIndex[target] }

func collectInto(evs *[]Event) func(Event) bool {
	return func(ev Event) bool {
		*evs = append(*evs, ev)
		return true
	}
}
