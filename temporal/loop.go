package temporal

import (
	"encoding/json"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/durable"
)

// agentRef names an agent registered on the worker and the nesting depth
// its run has (0 for the top-level run, one more per handoff or agent
// tool). Parent and Tool name the agent tool whose sub-run this is (a
// child workflow), empty for a run a client started: a sub-run gets the
// tool's run configuration and no run-level hooks, as in process.
type agentRef struct {
	Name   string `json:"name"`
	Depth  int    `json:"depth,omitempty"`
	Parent string `json:"parent,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// host runs the steps of a durable run. The workflow's host runs each as a
// Temporal activity; the tests' host runs them in process. Neither holds
// loop logic: that is [durable.Driver]'s and runLoop's.
type host interface {
	// plan returns the agent's transition context and tool-call bound.
	plan(a agentRef) (helikon.TransitionCtx, int, error)
	// start renders the instructions and runs the pre-run checks.
	start(a agentRef, input []helikon.Item) (system []helikon.Item, inject []string, failure []helikon.Event)
	callModel(a agentRef, turn int, req *helikon.ModelRequest, inject []string) helikon.TransitionInput
	// runTools runs a round's calls, at most parallel at a time, and
	// returns their outcomes in call order.
	runTools(a agentRef, work []toolWork, parallel int) []toolDone
	// await reports the pause of a's loop on pending calls and waits for
	// the human's decisions, which it returns.
	await(a agentRef, pending []helikon.PendingApproval, usage helikon.Usage) []helikon.Decision
	hook(a agentRef, ev *helikon.HookEvent) (denied bool, reason string)
	// filter applies the handoff's input filter to the transcript.
	filter(a agentRef, target string, transcript []helikon.Item) []helikon.Item
	finish(a agentRef, output string, handedOff bool) []helikon.Event
	emit(ev helikon.Event)
}

// toolWork is one call of a tool round and what the run knows of it from
// before a pause.
type toolWork struct {
	Call helikon.ToolCall `json:"call"`
	// Settled is the call's outcome from before the pause: it does not run
	// again.
	Settled *helikon.ToolStep `json:"settled,omitempty"`
	// Pending is the approval the call waits for and Args what it runs
	// with; with a Decision it runs as decided, without one it waits on.
	Pending  *helikon.PendingApproval `json:"pending,omitempty"`
	Args     json.RawMessage          `json:"args,omitempty"`
	Decision *helikon.Decision        `json:"decision,omitempty"`
	// Child is set for an agent tool's call whose sub-run (a child
	// workflow) paused: the child waits for the decisions on its calls.
	Child *childWait `json:"child,omitempty"`
}

// childWait is an agent tool's call whose sub-run paused for approval. The
// sub-run keeps its own state and waits; the run around it pauses with the
// sub-run's pending approvals and forwards the decisions on them.
type childWait struct {
	// ID names the sub-run (the child workflow's id).
	ID string `json:"id"`
	// Pending are the sub-run's approvals, their paths from this run's
	// agent on.
	Pending []helikon.PendingApproval `json:"pending"`
	// Usage is what the sub-run had spent when it paused.
	Usage helikon.Usage `json:"usage"`
	// Decisions are the human's decisions on Pending, to forward.
	Decisions []helikon.Decision `json:"decisions,omitempty"`
}

// has reports whether the sub-run waits on approval id.
func (c *childWait) has(id string) bool {
	for _, p := range c.Pending {
		if p.ID == id {
			return true
		}
	}
	return false
}

// toolDone is a call's outcome in a round: its step, and for an agent
// tool's call whose sub-run paused, that sub-run (the step is then pending
// on its first approval, which is what the driver needs to know).
type toolDone struct {
	helikon.ToolStep
	Child *childWait
}

// local reports whether the call settles without a step: it settled
// before the pause, it still waits for a decision, or its paused sub-run
// got no decision.
func (w toolWork) local() (toolDone, bool) {
	switch {
	case w.Settled != nil:
		// Its events and injections were delivered the first time.
		return toolDone{ToolStep: helikon.ToolStep{Result: w.Settled.Result}}, true
	case w.Child != nil && len(w.Child.Decisions) == 0:
		return childPending(w.Child), true
	case w.Pending != nil && w.Decision == nil:
		return toolDone{ToolStep: helikon.ToolStep{Pending: w.Pending, PendingArgs: w.Args}}, true
	}
	return toolDone{}, false
}

// childPending is the outcome of a call whose sub-run c paused.
func childPending(c *childWait) toolDone {
	return toolDone{ToolStep: helikon.ToolStep{Pending: &c.Pending[0]}, Child: &childWait{ID: c.ID, Pending: c.Pending, Usage: c.Usage}}
}

// runLoop runs agent a over input on h, emitting the run's events. A nested
// run (a handoff target) emits neither its RunStarted nor its terminal
// event, as the in-process handoff forwards its target's stream; its
// outcome is returned instead.
// Its RunCompleted is returned too, emitted or not: a handoff's caller
// reports the agent that answered from it.
func runLoop(h host, a agentRef, input []helikon.Item, nested bool) (res helikon.HandoffReturned, completed *helikon.RunCompleted) {
	// handedOff is the RunCompleted of the agent a handed the run to.
	var handedOff *helikon.RunCompleted
	emit := func(ev helikon.Event) {
		switch e := ev.(type) {
		case helikon.RunStarted:
			if nested {
				return
			}
		case helikon.RunCompleted:
			res.Usage, completed = e.Usage, &e
			if nested {
				return
			}
		case helikon.RunFailed:
			res.Err, res.Usage = e.Err, e.Usage
			if nested {
				return
			}
		}
		h.emit(ev)
	}
	tc, parallel, err := h.plan(a)
	if err != nil {
		emit(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindConfig, Agent: a.Name, Message: err.Error(), Err: err}})
		return res, completed
	}
	system, inject, failure := h.start(a, input)
	if failure != nil {
		for _, ev := range failure {
			emit(ev)
		}
		return res, completed
	}
	tc.System = system
	d := durable.NewDriver(tc, parallel)
	st := d.Start(input, inject)
	// round is the paused tool round, by call id, while the loop waits.
	var round map[string]toolWork
	for {
		for _, ev := range st.Events {
			emit(ev)
		}
		switch st.Kind {
		case durable.StepCallModel:
			st = d.Feed(h.callModel(a, st.Turn, st.Request, st.Inject))
		case durable.StepRunTools:
			work := make([]toolWork, len(st.Calls))
			for i, c := range st.Calls {
				work[i] = round[c.CallID]
				work[i].Call = c
			}
			outs := h.runTools(a, work, st.Parallel)
			steps := make([]helikon.ToolStep, len(outs))
			for i := range outs {
				steps[i] = outs[i].ToolStep
			}
			st = d.ToolsDone(steps)
			round = nil
			if st.Kind == durable.StepAwaitApprovals {
				round = make(map[string]toolWork, len(outs))
				for i, o := range outs {
					var w toolWork
					switch {
					case o.Child != nil:
						w = toolWork{Child: o.Child}
					case o.Pending != nil:
						w = toolWork{Pending: o.Pending, Args: o.PendingArgs}
					default:
						w = toolWork{Settled: &steps[i]}
					}
					round[work[i].Call.CallID] = w
				}
			}
		case durable.StepAwaitApprovals:
			// The pause reports what the run spent, its finished and its
			// paused sub-runs included, as in process.
			var usage helikon.Usage
			if s, ok := d.State().(helikon.NeedsApproval); ok {
				usage = s.Usage
			}
			usage = usage.Add(d.SubUsage())
			var pending []helikon.PendingApproval
			for _, c := range st.Pending {
				w := round[c.CallID]
				if w.Child != nil {
					pending = append(pending, w.Child.Pending...)
					usage = usage.Add(w.Child.Usage)
					continue
				}
				pending = append(pending, *w.Pending)
			}
			for _, dec := range h.await(a, pending, usage) {
				for id, w := range round {
					switch {
					case w.Pending != nil && w.Pending.ID == dec.ID:
						w.Decision = &dec
						round[id] = w
					case w.Child != nil && w.Child.has(dec.ID):
						w.Child.Decisions = append(w.Child.Decisions, dec)
					}
				}
			}
			st = d.Resolved()
		case durable.StepHandoff:
			var in helikon.TransitionInput
			in, handedOff = handoff(h, a, st.Target, d.Conversation(), emit)
			st = d.Feed(in)
		default:
			if done, ok := st.Final.(helikon.Done); ok {
				res.Output = done.Output
			}
			finishRun(h, a, withUsage(st.Final, d.SubUsage()), tc.Output != nil, handedOff, emit)
			return res, completed
		}
	}
}

// handoff runs the target of a's transfer inline, in the same run, so its
// steps are as durable as a's own.
// It returns the target's outcome and its RunCompleted, if it completed.
func handoff(h host, a agentRef, target string, conv []helikon.Item, emit func(helikon.Event)) (helikon.TransitionInput, *helikon.RunCompleted) {
	// The hook decides before the stream reports the handoff, so a denied
	// transfer never shows up as one.
	if denied, reason := h.hook(a, &helikon.HookEvent{Kind: helikon.OnHandoff, Agent: a.Name, From: a.Name, To: target}); denied {
		return helikon.Abort{Err: &helikon.AgentError{Kind: helikon.KindHook, Agent: a.Name, Message: reason}}, nil
	}
	emit(helikon.HandoffItem{From: a.Name, To: target})
	emit(helikon.AgentUpdated{Agent: target})
	res, completed := runLoop(h, agentRef{Name: target, Depth: a.Depth + 1, Parent: a.Parent, Tool: a.Tool}, h.filter(a, target, conv), true)
	h.hook(a, &helikon.HookEvent{Kind: helikon.OnSubagentStop, Agent: target, From: a.Name})
	return res, completed
}

// withUsage adds sub to a terminal state's usage.
func withUsage(s helikon.LoopState, sub helikon.Usage) helikon.LoopState {
	switch s := s.(type) {
	case helikon.Done:
		s.Usage = s.Usage.Add(sub)
		return s
	case helikon.Failed:
		s.Usage = s.Usage.Add(sub)
		return s
	}
	return s
}

// finishRun emits the terminal events of a terminal state. structured says
// a has an output type; handedOff is the RunCompleted of the agent that
// answered after a handoff (nil when a answered itself).
func finishRun(h host, a agentRef, final helikon.LoopState, structured bool, handedOff *helikon.RunCompleted, emit func(helikon.Event)) {
	switch s := final.(type) {
	case helikon.Done:
		if failure := h.finish(a, s.Output, handedOff != nil); failure != nil {
			for _, ev := range failure {
				if rf, ok := ev.(helikon.RunFailed); ok {
					rf.Usage = s.Usage
					ev = rf
				}
				emit(ev)
			}
			return
		}
		done := helikon.RunCompleted{Agent: a.Name, Usage: s.Usage, Structured: structured}
		if handedOff != nil {
			done.Agent, done.Structured = handedOff.Agent, handedOff.Structured
		}
		emit(done)
	case helikon.Failed:
		emit(helikon.RunFailed{Err: s.Err, Usage: s.Usage})
	default:
		emit(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: a.Name, Message: "run stopped in a non-terminal state"}})
	}
}
