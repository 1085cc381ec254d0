package workflow

import (
	"context"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/eventclock"
)

// ParallelAgent runs its branches concurrently, each on the run's input.
// They start one after another on the goroutine ranging over the stream,
// as a [SequentialAgent]'s steps do, and the branches not started once the
// first have run for 20 µs start on goroutines of their own: branches that
// are quick cost no hand-off between goroutines, and one that blocks holds
// the others back for no longer than that. As a branch completes its final text is written
// to the run's [State] under the branch's key. The final output is
// deterministic whatever order the branches finish in: one [MessageOutput]
// carrying a JSON object {key: output} with sorted keys.
//
// Failure is collect-all: a failed branch lets its siblings finish, then one
// RunFailed reports every failure (a [*WorkflowError] under the
// [*AgentError]). The branches' events are interleaved as they arrive, each
// branch announced by an [AgentUpdated] when it starts; every event reaches
// the consumer on the goroutine ranging over the stream, so while a branch
// runs on that goroutine the others' events reach it between that
// branch's events or once it ends, and wait in memory meanwhile, however
// many there are: a branch that streams while the one on the consumer's
// goroutine is silent (a long tool call) is seen in one burst at that
// branch's next event. Breaking out of
// the range stops the branches and waits for them: their context is
// cancelled, or, when the run's context can never be cancelled, each stops
// at its next event, as a single agent's run on such a context does; a
// branch not started by then never starts. Run-level hooks fire from the
// branches' goroutines, so they must be safe for concurrent use.
//
// A branch that pauses for approval ([RunPaused]) lets the other branches
// finish; then, unless one failed (a failure wins), the workflow pauses,
// keeping the finished branches' outputs. [Resume] runs only the paused
// branches again and merges their outputs with the kept ones.
type ParallelAgent struct {
	composite
	steps []step
	order []int // the steps' indices by key, for the merged output
}

// NewParallel builds a [ParallelAgent] from [Step] and [KeyedStep] options.
// Keys must be unique, since concurrent branches writing one key would race;
// this and the other checks of [NewSequential] fail with a [*helikon.BuildError]
// before any branch can start.
//
//	lenses, err := workflow.NewParallel("multi-lens",
//		workflow.KeyedStep("optimist", optimist),
//		workflow.KeyedStep("pessimist", pessimist))
func NewParallel(name string, opts ...WorkflowOption) (*ParallelAgent, error) {
	c, steps, err := buildSteps(name, opts)
	if err != nil {
		return nil, err
	}
	order := sortedBy(len(steps), func(i int) string { return steps[i].key })
	return &ParallelAgent{composite: c, steps: steps, order: order}, nil
}

// Run streams one run of the branches. See [Agent].
func (p *ParallelAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		direct := yield
		ctx, rc, yield, done, ok := p.beginFanOut(ctx, rc, false, len(p.steps), yield)
		if !ok {
			return
		}
		defer done()
		p.runBranches(ctx, rc, input, nil, nil, fanOut{yield: yield, direct: direct})
	}
}

// ResumeFrame resumes the branches that paused; the others keep the
// outputs they finished with.
func (p *ParallelAgent) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return p.resumeChildren(ctx, rc, f, ds, frameParallel, stepKeys(p.steps), p.runBranches)
}

// runBranches runs every branch, or, resuming, every branch that paused
// (prior holds how each branch stood at the pause).
func (p *ParallelAgent) runBranches(ctx context.Context, rc *helikon.RunContext, input []helikon.Item, prior []helikon.ChildFrame, ds *helikon.Decisions, out fanOut) {
	yield := out.yield
	f := newFanIn(ctx, len(p.steps))
	defer f.close()
	f.direct = out.direct
	running := 0
	var children []helikon.RunContext // the branches' contexts, made at the first start
	for i, st := range p.steps {
		var from *ResumePoint
		if prior != nil {
			if prior[i].Status == helikon.ChildDone {
				f.outs[i] = helikon.ChildOutcome{Final: prior[i].Output, Usage: prior[i].Usage, Finished: true}
				rc.State().SetString(st.key, prior[i].Output)
				continue
			}
			from = &ResumePoint{Frame: prior[i].Frame, Decisions: ds}
		}
		if children == nil {
			children = rc.Children(len(p.steps))
		}
		if !f.add(i, st.agent, &children[i], input, from, yield) {
			return
		}
		running++
	}
	for range running {
		i, ok := f.next(yield)
		if !ok {
			return
		}
		st := p.steps[i]
		if f.outs[i].Err == nil {
			rc.State().SetString(st.key, f.outs[i].Final)
		}
		helikon.SubagentStopped(ctx, rc, st.agent.Name())
	}

	var total helikon.Usage
	var failed []ChildFailure
	var paused bool
	escalated := false
	for i, o := range f.outs {
		total = total.Add(o.Usage)
		escalated = escalated || (f.kids[i].rc != nil && f.kids[i].rc.Actions().Escalated())
		switch {
		case o.Paused != nil:
			paused = true
		case o.Err != nil:
			failed = append(failed, ChildFailure{Key: p.steps[i].key, Err: o.Err})
		}
	}
	if escalated {
		rc.Actions().Escalate()
	}
	if failed != nil {
		yield(helikon.RunFailed{At: eventclock.Now(), Err: (&WorkflowError{Agent: p.name, Failed: failed}).aggregate(ctx)})
		return
	}
	if paused {
		fr := &helikon.PauseFrame{Kind: frameParallel, Agent: p.name, Input: input, Children: make([]helikon.ChildFrame, len(p.steps))}
		for i, o := range f.outs {
			ch := helikon.ChildFrame{Key: p.steps[i].key, Usage: o.Usage}
			if o.Paused != nil {
				ch.Status, ch.Frame = helikon.ChildPaused, o.Paused.Frame()
			} else {
				ch.Status, ch.Output = helikon.ChildDone, o.Final
				fr.Usage = fr.Usage.Add(o.Usage)
			}
			fr.Children[i] = ch
		}
		helikon.EmitPaused(rc, p.name, fr, total, yield)
		return
	}
	final := mergedOutput(len(p.order), func(k int) (string, string) {
		i := p.order[k]
		return p.steps[i].key, f.outs[i].Final
	})
	if !yield(finalMessage(p.name, final, nil)) {
		return
	}
	yield(helikon.RunCompleted{At: eventclock.Now(), Agent: p.name, Usage: total})
}
