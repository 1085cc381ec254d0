package workflow

import (
	"context"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/eventclock"
)

// ResumePoint is where a paused child resumes: the frame its pause wrote
// and the decisions of the resume.
type ResumePoint struct {
	Frame     *helikon.PauseFrame
	Decisions *helikon.Decisions
}

// ChildStream runs agent on input under rc, or, with from, resumes it from
// its pause; an agent that cannot resume fails with
// [helikon.ErrNotResumable].
func ChildStream(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, from *ResumePoint) iter.Seq[helikon.Event] {
	if from == nil {
		return agent.Run(ctx, rc, input)
	}
	r, ok := agent.(helikon.Resumer)
	if !ok {
		return func(yield func(helikon.Event) bool) {
			yield(helikon.RunFailed{At: eventclock.Now(), Err: helikon.NotResumable(agent.Name(), from.Frame)})
		}
	}
	return r.ResumeFrame(ctx, rc, from.Frame, from.Decisions)
}

// RunChild runs agent under a child of rc (or resumes it, with from),
// forwarding its events after an AgentUpdated and folding them into a
// [helikon.ChildOutcome]; then it fires the run-level OnSubagentStop hooks
// ([helikon.SubagentStopped]). ok is false when the consumer stopped.
//
// Together with the core's [helikon.OpenRun] and [helikon.EmitPaused] it is
// all a new kind of workflow agent needs (see the package's Example).
func RunChild(ctx context.Context, rc *helikon.RunContext, agent helikon.Agent, input []helikon.Item, from *ResumePoint, yield func(helikon.Event) bool) (o helikon.ChildOutcome, child *helikon.RunContext, ok bool) {
	if !yield(helikon.AgentUpdated{At: eventclock.Now(), Agent: agent.Name()}) {
		return o, nil, false
	}
	child = rc.Child()
	ok = true
	// A child that sends on after a refusal is not passed on: the
	// consumer's loop has ended.
	forward := func(ev helikon.Event) bool {
		ok = ok && (!o.See(ev) || yield(ev))
		return ok
	}
	streamChild(ctx, agent, child, input, from, forward)
	if !ok {
		return o, child, false
	}
	o.End(agent.Name())
	helikon.SubagentStopped(ctx, rc, agent.Name())
	return o, child, true
}

// streamChild sends to yield what ChildStream's stream would, and runs a
// fresh child through [helikon.RunInto], which makes no iterator for an
// LLM agent.
func streamChild(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, from *ResumePoint, yield func(helikon.Event) bool) {
	if from == nil {
		helikon.RunInto(ctx, agent, rc, input, yield)
		return
	}
	ChildStream(ctx, agent, rc, input, from)(yield)
}
