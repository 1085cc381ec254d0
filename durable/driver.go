package durable

import (
	"github.com/paigasus/helikon"
)

// StepKind names the side effect a [Driver] asks its host to run.
type StepKind int

// The step kinds.
const (
	// StepCallModel: call the model with Step.Request for Step.Turn,
	// appending Step.Inject as system messages; feed back the
	// [helikon.ModelResponse] or an [helikon.Abort].
	StepCallModel StepKind = iota
	// StepRunTools: run Step.Calls, at most Step.Parallel at a time (0:
	// all at once); feed back their outcomes with [Driver.ToolsDone].
	StepRunTools
	// StepHandoff: run the agent named Step.Target on
	// [Driver.Conversation]; feed back a [helikon.HandoffReturned].
	StepHandoff
	// StepAwaitApprovals: Step.Pending calls of the tool round wait for a
	// human decision; once decided, call [Driver.Resolved] and run
	// the round again, its settled calls not re-executed.
	StepAwaitApprovals
	// StepFinish: the run has ended in Step.Final, a [helikon.Done] or a
	// [helikon.Failed]. A Done still passes the output guardrails and the
	// OnRunComplete hooks before it becomes RunCompleted.
	StepFinish
)

// Step is what a [Driver] asks for next, after the events the last
// transition produced.
type Step struct {
	Kind StepKind
	// Events are the transition's events, to emit before the step runs.
	Events   []helikon.Event
	Turn     int
	Request  *helikon.ModelRequest
	Inject   []string
	Calls    []helikon.ToolCall
	Pending  []helikon.ToolCall
	Parallel int
	Target   string
	Final    helikon.LoopState
}

// Driver drives the core's pure [helikon.Transition] exactly as the
// in-process loop does, but returns each side effect as a [Step] value
// instead of running it. It has no I/O and no Temporal import, so a host
// can run each step wherever it likes (a Temporal activity, a queue
// consumer, a test) and the loop's logic stays in one place.
//
// A Driver is not safe for concurrent use; a workflow owns one.
type Driver struct {
	tc       helikon.TransitionCtx
	state    helikon.LoopState
	parallel int
	// inject holds hook-injected system messages due on the next model
	// call.
	inject []string
	// sub is what the runs tool calls started (agents used as tools)
	// spent.
	sub helikon.Usage
}

// NewDriver returns a driver for a run whose transition context is
// tc (see [helikon.Steps.TransitionCtx]; System set by the host) and whose
// tool rounds run at most parallel calls at a time (0: unbounded).
func NewDriver(tc helikon.TransitionCtx, parallel int) *Driver {
	return &Driver{tc: tc, parallel: parallel}
}

// Start begins the run over input. inject holds the system messages the
// OnRunStart hooks asked for.
func (d *Driver) Start(input []helikon.Item, inject []string) Step {
	d.tc.Conversation = append([]helikon.Item(nil), input...)
	d.inject = inject
	return d.Feed(helikon.Start{})
}

// Resume continues a run from a checkpoint the driver produced (see
// [Driver.Checkpoint]): the step the checkpoint's state calls for,
// with no events.
func (d *Driver) Resume(cp *helikon.Checkpoint) Step {
	d.state = cp.State
	d.tc.Conversation = append([]helikon.Item(nil), cp.Conversation...)
	d.inject = cp.Injections
	return d.step(nil, helikon.ActionFor(cp.State, &d.tc, nil))
}

// Feed applies one input (a [helikon.ModelResponse], [helikon.ToolResults],
// [helikon.HandoffReturned] or [helikon.Abort]) and returns the next step.
func (d *Driver) Feed(in helikon.TransitionInput) Step {
	out := helikon.Transition(d.state, in, &d.tc)
	d.tc.Conversation = append(d.tc.Conversation, out.Appends...)
	d.state = out.Next
	return d.step(out.Events, out.Action)
}

// ToolsDone feeds the outcomes of a StepRunTools round, in call order:
// each call's governance events come first, in call order, as the
// in-process loop emits them, then the transition's. A round with calls
// still pending a decision suspends the loop: the step is
// StepAwaitApprovals.
func (d *Driver) ToolsDone(outcomes []helikon.ToolStep) Step {
	var gov []helikon.Event
	var pending []helikon.ToolCall
	results := make([]helikon.ToolResult, len(outcomes))
	calls := d.roundCalls()
	for i, o := range outcomes {
		gov = append(gov, o.Events...)
		d.inject = append(d.inject, o.Inject...)
		d.sub = d.sub.Add(o.Usage)
		results[i] = o.Result
		if o.Pending != nil && i < len(calls) {
			pending = append(pending, calls[i])
		}
	}
	var in helikon.TransitionInput = helikon.ToolResults{Results: results}
	if pending != nil {
		in = helikon.ApprovalsPending{Pending: pending}
	}
	st := d.Feed(in)
	if len(gov) > 0 {
		st.Events = append(gov, st.Events...)
	}
	return st
}

// Resolved resumes a loop suspended at StepAwaitApprovals: the round runs
// again.
func (d *Driver) Resolved() Step { return d.Feed(helikon.ApprovalsResolved{}) }

func (d *Driver) roundCalls() []helikon.ToolCall {
	if s, ok := d.state.(helikon.ExecutingTools); ok {
		return s.Calls
	}
	return nil
}

func (d *Driver) step(events []helikon.Event, act helikon.NextAction) Step {
	st := Step{Events: events}
	switch act.Kind {
	case helikon.ActCallModel:
		st.Kind = StepCallModel
		st.Turn = turnOf(d.state)
		st.Request = act.Request
		st.Inject, d.inject = d.inject, nil
	case helikon.ActExecuteTools:
		st.Kind = StepRunTools
		st.Calls = act.Calls
		st.Parallel = d.parallel
	case helikon.ActHandoff:
		st.Kind = StepHandoff
		st.Target = act.Target
	case helikon.ActPause:
		if s, ok := d.state.(helikon.NeedsApproval); ok {
			st.Kind = StepAwaitApprovals
			st.Calls, st.Pending = s.Calls, s.Pending
			break
		}
		st.Kind = StepFinish
		st.Final = d.state
	default:
		st.Kind = StepFinish
		st.Final = d.state
	}
	return st
}

// Conversation returns the transcript so far (input included, system
// excluded). The caller must not modify it.
func (d *Driver) Conversation() []helikon.Item { return d.tc.Conversation }

// SubUsage returns what the runs the loop's tool calls started (agents
// used as tools) spent. The loop's own state counts only its model turns;
// a run's total is both, as the in-process loop reports it.
func (d *Driver) SubUsage() helikon.Usage { return d.sub }

// State returns the loop's current state.
func (d *Driver) State() helikon.LoopState { return d.state }

// Checkpoint returns the run frozen at the current transition boundary.
func (d *Driver) Checkpoint() *helikon.Checkpoint {
	return &helikon.Checkpoint{Agent: d.tc.Agent, State: d.state, Conversation: d.tc.Conversation, Injections: d.inject}
}

func turnOf(s helikon.LoopState) int {
	switch s := s.(type) {
	case helikon.CallingModel:
		return s.Turn
	case helikon.Finalizing:
		return s.Turn
	case helikon.RepairingOutput:
		return s.Turn
	}
	return 0
}
