package temporal

import (
	"github.com/paigasus/helikon"
)

// agentRef names an agent registered on the worker and the nesting depth
// its run has (0 for the top-level run, one more per handoff).
type agentRef struct {
	Name  string `json:"name"`
	Depth int    `json:"depth,omitempty"`
}

// host runs the steps of a durable run. The workflow's host runs each as a
// Temporal activity; the tests' host runs them in process. Neither holds
// loop logic: that is [DurableDriver]'s and runLoop's.
type host interface {
	// plan returns the agent's transition context and tool-call bound.
	plan(a agentRef) (helikon.TransitionCtx, int, error)
	// start renders the instructions and runs the pre-run checks.
	start(a agentRef, input []helikon.Item) (system []helikon.Item, inject []string, failure []helikon.Event)
	callModel(a agentRef, turn int, req *helikon.ModelRequest, inject []string) helikon.TransitionInput
	// runTools runs calls, at most parallel at a time, and returns their
	// outcomes in call order.
	runTools(a agentRef, calls []helikon.ToolCall, parallel int) []helikon.ToolStep
	hook(a agentRef, ev *helikon.HookEvent) (denied bool, reason string)
	// filter applies the handoff's input filter to the transcript.
	filter(a agentRef, target string, transcript []helikon.Item) []helikon.Item
	finish(a agentRef, output string, handedOff bool) []helikon.Event
	emit(ev helikon.Event)
}

// runLoop runs agent a over input on h, emitting the run's events. A nested
// run (a handoff target) emits neither its RunStarted nor its terminal
// event, as the in-process handoff forwards its target's stream; its
// outcome is returned instead.
func runLoop(h host, a agentRef, input []helikon.Item, nested bool) helikon.HandoffReturned {
	var (
		res       helikon.HandoffReturned
		handedOff bool
	)
	emit := func(ev helikon.Event) {
		switch e := ev.(type) {
		case helikon.RunStarted:
			if nested {
				return
			}
		case helikon.RunCompleted:
			res.Usage = e.Usage
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
		return res
	}
	system, inject, failure := h.start(a, input)
	if failure != nil {
		for _, ev := range failure {
			emit(ev)
		}
		return res
	}
	tc.System = system
	d := NewDurableDriver(tc, parallel)
	st := d.Start(input, inject)
	for {
		for _, ev := range st.Events {
			emit(ev)
		}
		switch st.Kind {
		case StepCallModel:
			st = d.Feed(h.callModel(a, st.Turn, st.Request, st.Inject))
		case StepRunTools:
			st = d.ToolsDone(h.runTools(a, st.Calls, st.Parallel))
		case StepHandoff:
			st = d.Feed(handoff(h, a, st.Target, d.Conversation(), emit))
			handedOff = true
		default:
			if done, ok := st.Final.(helikon.Done); ok {
				res.Output = done.Output
			}
			finishRun(h, a, st.Final, handedOff, emit)
			return res
		}
	}
}

// handoff runs the target of a's transfer inline, in the same run, so its
// steps are as durable as a's own.
func handoff(h host, a agentRef, target string, conv []helikon.Item, emit func(helikon.Event)) helikon.TransitionInput {
	// The hook decides before the stream reports the handoff, so a denied
	// transfer never shows up as one.
	if denied, reason := h.hook(a, &helikon.HookEvent{Kind: helikon.OnHandoff, Agent: a.Name, From: a.Name, To: target}); denied {
		return helikon.Abort{Err: &helikon.AgentError{Kind: helikon.KindHook, Agent: a.Name, Message: reason}}
	}
	emit(helikon.HandoffItem{From: a.Name, To: target})
	emit(helikon.AgentUpdated{Agent: target})
	res := runLoop(h, agentRef{Name: target, Depth: a.Depth + 1}, h.filter(a, target, conv), true)
	h.hook(a, &helikon.HookEvent{Kind: helikon.OnSubagentStop, Agent: target, From: a.Name})
	return res
}

// finishRun emits the terminal events of a terminal state.
func finishRun(h host, a agentRef, final helikon.LoopState, handedOff bool, emit func(helikon.Event)) {
	switch s := final.(type) {
	case helikon.Done:
		if failure := h.finish(a, s.Output, handedOff); failure != nil {
			for _, ev := range failure {
				if rf, ok := ev.(helikon.RunFailed); ok {
					rf.Usage = s.Usage
					ev = rf
				}
				emit(ev)
			}
			return
		}
		emit(helikon.RunCompleted{Agent: a.Name, Usage: s.Usage})
	case helikon.Failed:
		emit(helikon.RunFailed{Err: s.Err, Usage: s.Usage})
	default:
		emit(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: a.Name, Message: "run stopped in a non-terminal state"}})
	}
}
