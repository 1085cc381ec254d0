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
	// round is the paused tool round, one entry per call, set when the
	// round settles with calls still waiting.
	round []frameCall
	// handoff is the frame of the handoff target that paused, set while
	// the run waits on it; on resume, the target resumes from it.
	handoff *pauseFrame
	// handoffUsage is what the paused target spent.
	handoffUsage Usage
	// memo indexes a resumed round's calls by call id; it applies to the
	// first round after the resume only.
	memo map[string]*frameCall
	// ds holds the decisions of the resume under way.
	ds *decisionSet
	// reported is what this run had reported to the run around it (an
	// agent tool's caller) when it paused; resumed, it reports the rest.
	reported Usage
}

// resumer is implemented by the agents that can continue a paused run from
// the frame their own pause wrote.
type resumer interface {
	resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event]
}

// settle turns a round's outcomes into the next transition input: the
// results, or, when some calls wait, ApprovalsPending with the whole round
// kept for the resume.
func (d *driver) settle(calls []ToolCall, outs []callOutcome) TransitionInput {
	d.paused.memo = nil
	var pending []ToolCall
	for i := range outs {
		if outs[i].paused != nil {
			pending = append(pending, calls[i])
		}
	}
	if pending == nil {
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
	f := &pauseFrame{
		Kind: frameLLM, Agent: d.a.name, Usage: spent,
		Checkpoint: &Checkpoint{Agent: d.a.name, State: state, Conversation: d.tc.conversationView(), Injections: d.injections},
		Handoff:    d.paused.handoff,
	}
	if _, ok := state.(NeedsApproval); ok {
		f.Round = d.paused.round
	}
	emitPaused(d.rc, d.a.name, f, usage, yield)
}

// emitPaused yields the RunPaused of agent's frame f. A top-level run
// (depth 0) lists the pending approvals, names the run and the pause and
// seals the state; a nested run's state only carries the frame up to the
// parent that folds it into its own.
func emitPaused(rc *RunContext, agent string, f *pauseFrame, usage Usage, yield func(Event) bool) {
	st := &RunState{Version: RunStateVersion, Agent: agent, Usage: usage, root: f}
	if rc.depth == 0 {
		st.RunID, st.PauseID = newID("run_"), newID("pause_")
		st.Pending = f.pending(nil, nil)
		if err := st.seal(rc.gov.stateKey); err != nil {
			yield(RunFailed{Err: &AgentError{Kind: KindOther, Agent: agent, Message: "seal run state: " + err.Error(), Err: err}, Usage: usage})
			return
		}
	}
	yield(RunPaused{Agent: agent, State: st, Usage: usage})
}

// resumeFrame continues the LLM agent's paused run from f.
func (a *LLMAgent) resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		d := a.newDriver(orEphemeral(rc))
		defer d.workers.stop()
		d.resumePaused(ctx, f, ds, yield)
	}
}

func (d *driver) resumePaused(ctx context.Context, f *pauseFrame, ds *decisionSet, yield func(Event) bool) {
	if f == nil || f.Kind != frameLLM || f.Agent != d.a.name || f.Checkpoint == nil {
		yield(RunFailed{Err: notResumable(d.a.name, f)})
		return
	}
	d.paused.ds, d.paused.reported = ds, f.Usage
	switch f.Checkpoint.State.(type) {
	case NeedsApproval:
		d.paused.memo = make(map[string]*frameCall, len(f.Round))
		for i := range f.Round {
			d.paused.memo[f.Round[i].CallID] = &f.Round[i]
		}
	case ApplyingHandoff:
		if f.Handoff == nil {
			yield(RunFailed{Err: notResumable(d.a.name, f)})
			return
		}
		d.paused.handoff = f.Handoff
	default:
		yield(RunFailed{Err: notResumable(d.a.name, f)})
		return
	}
	d.resume(ctx, f.Checkpoint, yield)
}

// notResumable reports a frame agent cannot resume.
func notResumable(agent string, f *pauseFrame) *AgentError {
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
		tc := &ToolContext{Context: ctx, rc: d.rc, CallID: call.CallID, ToolName: call.Name, Agent: d.a.name, depthLimit: d.depthLimit, call: out}
		output, err := r.resumeCall(tc, fc.Sub, ds)
		d.settleCall(ctx, call, fc.Args, output, err, out)
		return
	}
	if fc.Status != callPending || fc.Approval == nil {
		out.result = errorResult(call, "paused call has no approval request")
		return
	}
	dec, ok := ds.byID[fc.Approval.ID]
	if !ok {
		if !grantCovers(ds.grants, PermissionRequest{Tool: call.Name, CallID: call.CallID, Args: fc.Args, Effect: EffectOf(tool)}) {
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
		out.emit(PermissionDenied{CallID: call.CallID, Tool: call.Name, Reason: msg})
		out.result = errorResult(call, msg)
	case DecisionApproveWithArgs:
		req := PermissionRequest{Tool: call.Name, CallID: call.CallID, Args: dec.Args, Effect: EffectOf(tool), tool: tool}
		if a, ok := d.rescreen(ctx, req); !ok {
			reason := d.rc.redactText(a.reason)
			out.emit(PermissionDenied{CallID: call.CallID, Tool: call.Name, Reason: reason})
			out.result = errorResult(call, "permission denied: "+reason)
			return
		}
		d.invoke(ctx, tool, call, dec.Args, out)
	default: // approve, always
		d.invoke(ctx, tool, call, fc.Args, out)
	}
}

// rescreen passes arguments a human wrote through the deny and guard rules.
// A guard that would ask is answered by the human's decision itself.
func (d *driver) rescreen(ctx context.Context, req PermissionRequest) (authorization, bool) {
	human := *d.rc
	human.gov.approval = humanApproved{}
	var v callView
	v.read(req)
	a := authorization{args: req.Args}
	ok := human.screen(ctx, &v, &a)
	return a, ok
}

// humanApproved answers the guard asks of a human's own decision.
type humanApproved struct{}

func (humanApproved) Decide(context.Context, PermissionRequest, string) ApprovalOutcome {
	return ApprovalOutcome{Allow: true}
}

// grantCovers reports whether this resume's "always" rules allow req.
func grantCovers(grants []AllowRule, req PermissionRequest) bool {
	if len(grants) == 0 {
		return false
	}
	var v callView
	v.read(req)
	return allowed(grants, &v)
}

// subRunPaused is the error an agent tool returns when its run paused: the
// call pauses with it, keeping the sub-run's frame.
type subRunPaused struct {
	frame *pauseFrame
}

func (e *subRunPaused) Error() string { return "the agent tool's run paused for approval" }

func asSubRunPaused(err error) *subRunPaused {
	var p *subRunPaused
	if err != nil && errors.As(err, &p) {
		return p
	}
	return nil
}

// subRunResumer is a tool that runs an agent and can resume its paused run.
type subRunResumer interface {
	resumeCall(tc *ToolContext, f *pauseFrame, ds *decisionSet) (ToolOutput, error)
}

// minus returns u less o, field by field.
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
