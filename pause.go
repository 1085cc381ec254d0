package helikon

import (
	"context"
	"errors"
	"iter"
)

// This file is the LLM agent's side of human in the loop: how a tool round
// with calls awaiting a decision pauses the run, and how a resumed run
// replays the round with the decisions in hand.

// pausedRound is what a driver keeps of a pause beyond the loop state.
type pausedRound struct {
	// round is the paused tool round, one entry per call.
	round []frameCall
	// handoff is the frame of the handoff target that paused, which it
	// resumes from.
	handoff      *PauseFrame
	handoffUsage Usage
	// memo indexes a resumed round's calls by call id; it applies to the
	// first round after the resume only.
	memo map[string]*frameCall
	ds   *Decisions
	// reported is what this run had reported to the run around it (an
	// agent tool's caller) when it paused; resumed, it reports the rest.
	reported Usage
}

// Resumer is an [Agent] that can continue a paused run from the frame its
// own pause wrote ([EmitPaused]): ResumeFrame streams the rest of the run
// under rc with the resume's decisions, which a child it resumes gets too.
// A frame it did not write fails with [NotResumable].
type Resumer interface {
	Agent
	ResumeFrame(ctx context.Context, rc *RunContext, f *PauseFrame, ds *Decisions) iter.Seq[Event]
}

// settle turns a round's outcomes into the results, or, when some calls
// wait, ApprovalsPending with the whole round kept for the resume.
func (d *driver) settle(calls []ToolCall, outs []callOutcome) TransitionInput {
	return d.settleInto(calls, outs, nil)
}

// settleInto is settle with the round's results and what the transition
// after them allocates made ahead (roundAhead), when ahead is not nil.
func (d *driver) settleInto(calls []ToolCall, outs []callOutcome, ahead *roundAhead) TransitionInput {
	d.paused.memo = nil
	var pending []ToolCall
	for i := range outs {
		if outs[i].paused != nil {
			pending = append(pending, calls[i])
		}
	}
	if pending == nil {
		if ahead != nil {
			for i := range outs {
				ahead.results[i] = outs[i].result
			}
			d.tc.ahead = ahead
			return ahead.in
		}
		results := make([]ToolResult, len(calls))
		for i := range outs {
			results[i] = outs[i].result
		}
		return ToolResults{Results: results}
	}
	round := make([]frameCall, len(calls))
	for i := range outs {
		if p := outs[i].paused; p != nil {
			round[i] = *p
			continue
		}
		r := outs[i].result
		round[i] = frameCall{CallID: calls[i].CallID, Name: calls[i].Name, Status: callDone, Result: &r}
	}
	d.paused.round = round
	return ApprovalsPending{Pending: pending}
}

// pause ends the stream with RunPaused, freezing state, the paused round
// and a paused handoff target into the run's frame.
func (d *driver) pause(state LoopState, yield func(Event) bool) {
	// The frame keeps what the run spent, its finished sub-runs included,
	// without a paused handoff target's share: resumed, the target reports
	// its whole run again.
	spent := d.settleUsage()
	usage := spent.Add(d.paused.handoffUsage)
	f := &PauseFrame{
		Kind: FrameLLM, Agent: d.a.name, Usage: spent,
		llmFrame: llmFrame{
			Checkpoint: &Checkpoint{Agent: d.a.name, State: state, Conversation: d.tc.conversationView(), Injections: d.injections},
			Handoff:    d.paused.handoff,
		},
	}
	if _, ok := state.(NeedsApproval); ok {
		f.Round = d.paused.round
	}
	EmitPaused(d.rc, d.a.name, f, usage, yield)
}

// EmitPaused ends agent's run paused for approval: it yields the RunPaused
// of agent's frame f, with usage the whole run's spend. A top-level run
// lists the pending approvals, names the run and the pause and seals the
// state; a nested run's only carries the frame up to its parent.
func EmitPaused(rc *RunContext, agent string, f *PauseFrame, usage Usage, yield func(Event) bool) {
	st := &RunState{Version: RunStateVersion, Agent: agent, Usage: usage, root: f}
	if rc.depth == 0 {
		st.RunID, st.PauseID = newID("run_"), newID("pause_")
		st.Pending = f.pending(nil, nil)
		if err := st.seal(rc.settings().stateKey); err != nil {
			yield(RunFailed{At: now(), Err: &AgentError{Kind: KindOther, Agent: agent, Message: "seal run state: " + err.Error(), Err: err}, Usage: usage})
			return
		}
	}
	yield(RunPaused{At: now(), Agent: agent, State: st, Usage: usage})
}

// ResumeFrame continues the LLM agent's paused run from f.
func (a *LLMAgent) ResumeFrame(ctx context.Context, rc *RunContext, f *PauseFrame, ds *Decisions) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		d := a.newDriver(orEphemeral(rc))
		d.resumePaused(ctx, f, ds, yield)
	}
}

func (d *driver) resumePaused(ctx context.Context, f *PauseFrame, ds *Decisions, yield func(Event) bool) {
	ok := f != nil && f.Kind == FrameLLM && f.Agent == d.a.name && f.Checkpoint != nil
	if ok {
		switch f.Checkpoint.State.(type) {
		case NeedsApproval:
			d.paused.memo = make(map[string]*frameCall, len(f.Round))
			for i := range f.Round {
				d.paused.memo[f.Round[i].CallID] = &f.Round[i]
			}
		case ApplyingHandoff:
			d.paused.handoff, ok = f.Handoff, f.Handoff != nil
		default:
			ok = false
		}
	}
	if !ok {
		yield(RunFailed{At: now(), Err: NotResumable(d.a.name, f)})
		return
	}
	d.paused.ds, d.paused.reported = ds, f.Usage
	d.resume(ctx, f.Checkpoint, yield)
}

// NotResumable is the failure of agent asked to resume frame f, which it
// did not write: a [KindConfig] error wrapping [ErrNotResumable].
func NotResumable(agent string, f *PauseFrame) *AgentError {
	msg := ErrNotResumable.Error()
	if f != nil {
		msg += ": frame of " + f.Kind + " agent " + f.Agent
	}
	return &AgentError{Kind: KindConfig, Agent: agent, Message: msg, Err: ErrNotResumable}
}

// resumeCall settles a call of the paused round: a decided call runs or is
// refused as decided, an agent tool's paused run resumes, an undecided call
// waits on.
func (d *driver) resumeCall(ctx context.Context, tool Tool, call ToolCall, fc *frameCall, out *callOutcome) {
	ds := d.paused.ds
	if fc.Status == callNested {
		r, ok := tool.(subRunResumer)
		if !ok || fc.Sub == nil {
			out.result = errorResult(call, "tool "+call.Name+" cannot resume a paused run")
			return
		}
		tc := d.toolContext(ctx, call, out)
		output, err := r.resumeCall(&tc, fc.Sub, ds)
		d.settleCall(ctx, call, fc.Args, output, err, out)
		return
	}
	if fc.Status != callPending || fc.Approval == nil {
		out.result = errorResult(call, "paused call has no approval request")
		return
	}
	dec, ok := ds.byID[fc.Approval.ID]
	if !ok {
		g, granter := d.rc.settings().auth.(Granter)
		if !granter || len(ds.grants) == 0 || !g.Granted(ds.grants, PermissionRequest{Tool: call.Name, CallID: call.CallID, Args: fc.Args, Effect: EffectOf(tool), Impl: tool}) {
			c := *fc
			out.paused = &c
			return
		}
		dec = Decision{ID: fc.Approval.ID, Kind: DecisionApprove}
	}
	switch dec.Kind {
	case DecisionReject:
		msg := "rejected by the user"
		if dec.Message != "" {
			msg += ": " + dec.Message
		}
		out.emit(PermissionDenied{At: now(), CallID: call.CallID, Tool: call.Name, Reason: msg})
		out.result = errorResult(call, msg)
	case DecisionApproveWithArgs:
		req := PermissionRequest{Tool: call.Name, CallID: call.CallID, Args: dec.Args, Effect: EffectOf(tool), Impl: tool, Approved: true}
		if a := d.rc.authorize(ctx, req, humanApproved{}); !a.Allowed {
			out.deny(call, "permission denied: ", a.Reason)
			return
		}
		d.invoke(ctx, tool, call, dec.Args, out)
	default: // approve, always
		d.invoke(ctx, tool, call, fc.Args, out)
	}
}

// humanApproved answers the questions about a human's own decision.
type humanApproved struct{}

func (humanApproved) Ask(context.Context, PermissionRequest, string, string) Verdict {
	return Verdict{Allowed: true}
}

// subRunPaused is the error an agent tool returns when its run paused: the
// call pauses with it, keeping the sub-run's frame.
type subRunPaused struct {
	frame *PauseFrame
}

func (e *subRunPaused) Error() string { return "the agent tool's run paused for approval" }

func asSubRunPaused(err error) *subRunPaused {
	// errors.AsType, unlike errors.As, needs no target on the heap: this
	// runs on every tool call, and almost every call has no error at all.
	if err == nil {
		return nil
	}
	p, _ := errors.AsType[*subRunPaused](err)
	return p
}

// subRunResumer is an agent tool, which can resume its paused run.
type subRunResumer interface {
	resumeCall(tc *ToolContext, f *PauseFrame, ds *Decisions) (ToolOutput, error)
}

func (u Usage) minus(o Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens - o.InputTokens,
		OutputTokens:      u.OutputTokens - o.OutputTokens,
		CachedInputTokens: u.CachedInputTokens - o.CachedInputTokens,
		CacheWriteTokens:  u.CacheWriteTokens - o.CacheWriteTokens,
		ReasoningTokens:   u.ReasoningTokens - o.ReasoningTokens,
		Cost:              u.Cost - o.Cost,
	}
}
