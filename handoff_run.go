package helikon

import (
	"context"
	"iter"
)

// handoff runs the target agent on the conversation: HandoffItem and
// AgentUpdated, then the target's stream without its RunStarted and outcome
// (the outer run reports the summed usage). A target that pauses pauses
// this run; resumed, it resumes from its frame after an AgentUpdated only.
func (d *driver) handoff(ctx context.Context, target string, yield func(Event) bool) (TransitionInput, bool) {
	h := d.a.handoffIndex[target]
	if h == nil {
		return Abort{Err: agentErrorf(KindConfig, d.a.name, "unknown handoff target %q", target)}, true
	}
	child := d.rc.Child()
	child.depthBound = d.depthLimit
	if f := d.paused.handoff; f != nil {
		d.paused.handoff, d.paused.handoffUsage = nil, Usage{}
		r, ok := h.Agent.(Resumer)
		if !ok {
			return Abort{Err: NotResumable(target, f)}, true
		}
		if !yield(AgentUpdated{At: now(), Agent: target}) {
			return nil, false
		}
		return d.followHandoff(ctx, target, child, r.ResumeFrame(d.handoffContext(ctx), child, f, d.paused.ds), yield)
	}
	// The hook decides before the stream reports the handoff, so a denied
	// transfer never shows up as one.
	if f := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnHandoff, Agent: d.a.name, From: d.a.name, To: target}); f.denied {
		return Abort{Err: &AgentError{Kind: KindHook, Agent: d.a.name, Message: f.reason}}, true
	}
	if !yield(HandoffItem{At: now(), From: d.a.name, To: target}) || !yield(AgentUpdated{At: now(), Agent: target}) {
		return nil, false
	}
	transcript := d.tc.conversationView()
	if h.InputFilter != nil {
		transcript = h.InputFilter(transcript)
	}
	// The target runs under its own configuration; only this run's depth
	// bound crosses, so a chain stays bounded by the tightest agent on it.
	return d.followHandoff(ctx, target, child, h.Agent.Run(d.handoffContext(ctx), child, transcript), yield)
}

func (d *driver) followHandoff(ctx context.Context, target string, child *RunContext, stream iter.Seq[Event], yield func(Event) bool) (TransitionInput, bool) {
	var res HandoffReturned
	var last string
	for ev := range stream {
		switch e := ev.(type) {
		case RunPaused:
			d.paused.handoff, d.paused.handoffUsage = e.State.root, e.Usage
			return HandoffPaused{}, true
		case RunStarted:
			continue
		case RunCompleted:
			res.Usage = e.Usage
			d.lastAgent, d.lastStructured = e.Agent, e.Structured
			continue
		case RunFailed:
			res.Err, res.Usage = e.Err, e.Usage
			continue
		case MessageOutput:
			last = e.Item.Text()
		}
		// Every event of an LLM agent's run carries its time, as a
		// workflow's fan-out relies on (its children's events skip its
		// stamping); a target that is not an LLM agent may send one
		// without.
		if !yield(Stamp(ev)) {
			return nil, false
		}
	}
	// The target finished this run, so its escalation is this run's: an
	// enclosing LoopAgent must see it.
	if child.actions.Escalated() {
		d.rc.actions.Escalate()
	}
	res.Output = last
	d.obs.spent = d.obs.spent.Add(res.Usage)
	d.handedOff = true
	// The target's run has ended: the handing-off agent's own hooks see it
	// too, before the run-level ones.
	fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnSubagentStop, Agent: target, From: d.a.name})
	return res, true
}
