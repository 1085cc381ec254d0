package helikon

import "context"

// handoff runs the target agent on the conversation and forwards its events:
// HandoffItem and AgentUpdated first, then the target's stream without its
// RunStarted and RunCompleted (the outer run reports the summed usage).
func (d *driver) handoff(ctx context.Context, target string, yield func(Event) bool) (TransitionInput, bool) {
	h := d.a.handoffIndex[target]
	if h == nil {
		return Abort{Err: agentErrorf(KindConfig, d.a.name, "unknown handoff target %q", target)}, true
	}
	if !yield(HandoffItem{From: d.a.name, To: target}) || !yield(AgentUpdated{Agent: target}) {
		return nil, false
	}
	if f := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnHandoff, Agent: d.a.name, From: d.a.name, To: target}); f.denied {
		return Abort{Err: &AgentError{Kind: KindHook, Agent: d.a.name, Message: f.reason}}, true
	}
	transcript := d.tc.Conversation
	if h.InputFilter != nil {
		transcript = h.InputFilter(transcript)
	}
	child := d.rc.Child()
	if child.config == nil && d.rc.config == nil && d.a.config != nil {
		// The parent's own config carries its depth bound to the target.
		c := *d.a.config
		child.config = &c
	}
	var res HandoffReturned
	var last string
	for ev := range h.Agent.Run(ctx, child, transcript) {
		switch e := ev.(type) {
		case RunStarted:
			continue
		case RunCompleted:
			res.Usage = e.Usage
			continue
		case RunFailed:
			res.Err = e.Err
			continue
		case MessageOutput:
			last = e.Item.Text()
		}
		if !yield(ev) {
			return nil, false
		}
	}
	res.Output = last
	d.handedOff = true
	return res, true
}
