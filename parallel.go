package helikon

import (
	"context"
	"iter"
)

// ParallelAgent runs its branches concurrently, each on the run's input and
// each in its own goroutine. As a branch completes its final text is written
// to the run's [State] under the branch's key. The final output is
// deterministic whatever order the branches finish in: one [MessageOutput]
// carrying a JSON object {key: output} with sorted keys.
//
// Failure is collect-all: a failed branch lets its siblings finish, then one
// RunFailed reports every failure (a [*WorkflowError] under the
// [*AgentError]). The branches' events are interleaved as they arrive, each
// branch announced by an [AgentUpdated] when it starts; every event reaches
// the consumer on the goroutine ranging over the stream. Breaking out of
// the range cancels the branches and waits for them. Run-level hooks fire
// from the branches' goroutines, so they must be safe for concurrent use.
type ParallelAgent struct {
	composite
	steps []step
}

// NewParallel builds a [ParallelAgent] from [Step] and [KeyedStep] options.
// Keys must be unique, since concurrent branches writing one key would race;
// this and the other checks of [NewSequential] fail with a [*BuildError]
// before any branch can start.
//
//	lenses, err := helikon.NewParallel("multi-lens",
//		helikon.KeyedStep("optimist", optimist),
//		helikon.KeyedStep("pessimist", pessimist))
func NewParallel(name string, opts ...WorkflowOption) (*ParallelAgent, error) {
	c, steps, err := buildSteps(name, opts)
	if err != nil {
		return nil, err
	}
	return &ParallelAgent{composite: c, steps: steps}, nil
}

// Run streams one run of the branches. See [Agent].
func (p *ParallelAgent) Run(ctx context.Context, rc *RunContext, input []Item) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, rc, yield, done, ok := p.begin(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		f := newFanIn(ctx, len(p.steps))
		defer f.close()
		children := make([]*RunContext, len(p.steps))
		for i, st := range p.steps {
			if !yield(AgentUpdated{Agent: st.agent.Name()}) {
				return
			}
			children[i] = rc.Child()
			f.start(i, st.agent, children[i], input)
		}
		for range p.steps {
			i, ok := f.next(yield)
			if !ok {
				return
			}
			st := p.steps[i]
			if f.outs[i].err == nil {
				rc.state.Set(st.key, f.outs[i].final)
			}
			subagentStopped(ctx, rc, st.agent.Name())
		}

		var total Usage
		var failed []ChildFailure
		outputs := make(map[string]string, len(p.steps))
		escalated := false
		for i, o := range f.outs {
			total = total.Add(o.usage)
			escalated = escalated || children[i].actions.Escalated()
			if o.err != nil {
				failed = append(failed, ChildFailure{Key: p.steps[i].key, Err: o.err})
				continue
			}
			outputs[p.steps[i].key] = o.final
		}
		if escalated {
			rc.actions.Escalate()
		}
		if failed != nil {
			yield(RunFailed{Err: (&WorkflowError{Agent: p.name, Failed: failed}).aggregate(ctx)})
			return
		}
		if !yield(finalMessage(p.name, mergedOutput(outputs))) {
			return
		}
		yield(RunCompleted{Agent: p.name, Usage: total})
	}
}
