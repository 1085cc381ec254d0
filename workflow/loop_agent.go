package workflow

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon"
	"iter"
)

// LoopAgent repeats its steps, in order and each on the run's input, up to a
// number of iterations. After each step its final text is written to the
// run's [State] under the step's key, and if a tool under that step called
// [Actions.Escalate] the loop completes there, before the rest of the pass.
// Using up the iterations without an escalation fails the run with
// [ErrMaxIterationsExceeded]; a failing step fails it at once.
//
// Every step runs under its own child [RunContext] with fresh [Actions], so
// an escalation stops exactly the innermost loop around it.
//
// A step that pauses for approval ([RunPaused]) pauses the loop; [Resume]
// continues at that step of that iteration.
type LoopAgent struct {
	composite
	steps         []step
	maxIterations int
}

// NewLoop builds a [LoopAgent] that runs its steps at most maxIterations
// times. It fails with a [*helikon.BuildError] for an empty name, maxIterations < 1,
// no steps, a nil agent or two steps with one key.
//
//	refine, err := workflow.NewLoop("draft-and-critique", 5,
//		workflow.Step(drafter),
//		workflow.Step(critic)) // critic's approve tool escalates
func NewLoop(name string, maxIterations int, opts ...WorkflowOption) (*LoopAgent, error) {
	c, steps, err := buildSteps(name, opts)
	if err != nil {
		return nil, err
	}
	if maxIterations < 1 {
		return nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("max iterations is %d; want at least 1", maxIterations))
	}
	return &LoopAgent{composite: c, steps: steps, maxIterations: maxIterations}, nil
}

// MaxIterations returns the loop's iteration budget.
func (l *LoopAgent) MaxIterations() int { return l.maxIterations }

// Run streams one run of the loop. See [Agent].
func (l *LoopAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := l.begin(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		l.runSteps(ctx, rc, l.steps, input, frameLoop, l.maxIterations, &stepsRun{outputs: make(map[string]string, len(l.steps))}, yield)
	}
}
