package helikon

import (
	"context"
	"encoding/json"
)

// Steps is an LLM agent's loop taken apart into its side effects, for a
// runner that drives [Transition] itself: a durable runner that runs every
// model turn and every tool call as its own retryable unit of work, on
// whichever process picks it up. Each step goes through the code the
// in-process loop runs (hooks, permissions, approvals, redaction, guardrail
// panics caught), so a step-driven run and an in-process run of the same
// agent behave alike.
//
// A Steps is cheap; build one per step with [LLMAgent.Steps]. It opens no
// agent span and meters no budget: the runner driving it owns the run.
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
// permission configuration, the nesting depth, the input guardrails (run to
// completion, as with [WithBlockingInputGuardrails]) and the OnRunStart
// hooks. A nil failure means the run may start; inject holds the system
// messages the hooks asked for on the first model call. A failure is the
// events the run ends with.
func (s *Steps) Start(ctx context.Context, input []Item) (inject []string, failure []Event) {
	d := s.d
	if d.rc.depth > d.depthLimit {
		return nil, []Event{RunFailed{At: now(), Err: agentErrorf(KindMaxAgentDepthExceeded, d.a.name, "depth %d exceeds %d", d.rc.depth, d.depthLimit)}}
	}
	if err := d.rc.optErr; err != nil {
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
// model on req with inject appended as system messages, streaming the raw
// deltas to emit (nil: dropped). It returns the settled [ModelResponse], or
// an [Abort] for a model failure, a cancellation or a hook's denial; inject
// holds the system messages the OnTurnStart hooks asked for and the model
// has not seen.
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
	// Events are the events of the call (ApprovalRequested,
	// PermissionDenied, an agent tool's [SubRunEvent]s), in the order they
	// happened.
	Events []Event `json:"-"`
	// Inject holds the system messages the call's hooks asked for on the
	// next model call.
	Inject []string `json:"inject,omitempty"`
	// Pending is set, and Result empty, when the call waits for a human
	// decision: the permission policy or a guard asked and no approver
	// answered. [Steps.CallDecided] runs it once decided, with PendingArgs.
	Pending     *PendingApproval `json:"pending,omitempty"`
	PendingArgs json.RawMessage  `json:"pending_args,omitempty"`
	// Usage is what the runs the call started (an agent used as a tool)
	// spent; the in-process loop adds it to the run's total.
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
	ctx = s.deferring(ctx)
	sink := s.sink(&ctx)
	s.d.runCall(ctx, call, &out)
	return s.settled(call, &out, sink)
}

// sink points *ctx at a fresh usage sink, which the runs a tool starts
// report to, as they report to the run's own in the loop.
func (s *Steps) sink(ctx *context.Context) *usageSink {
	sc := &sinkContext{Context: *ctx, sink: &usageSink{}}
	*ctx = sc
	return sc.sink
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
// [Resume] does under rc (nil: [Ephemeral]): every id pending and named
// once, every decision well formed. It returns the allow rules the "always"
// decisions grant.
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
	var out callOutcome
	ctx = s.deferring(ctx)
	sink := s.sink(&ctx)
	s.d.runCall(ctx, call, &out)
	return s.settled(call, &out, sink)
}

// Hook fires the agent's and the run's hooks for ev and reports whether one
// denied it (with the reason) and the system messages they asked for. A
// runner uses it for the lifecycle events it drives itself: OnHandoff,
// OnSubagentStop and OnRunComplete.
func (s *Steps) Hook(ctx context.Context, ev *HookEvent) (denied bool, reason string, inject []string) {
	f := fireHooks(ctx, s.d.rc, s.d.a.hooks, ev)
	return f.denied, f.reason, f.inject
}

// Finish runs what the in-process loop runs when the model has answered
// with output: the output guardrails (handedOff skips them, as the loop
// does for a run a handoff target finished) and the OnRunComplete hooks.
// A non-nil failure is the events the run ends with instead of
// RunCompleted.
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
