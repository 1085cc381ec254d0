package workflow

import (
	"context"
	"github.com/paigasus/helikon"
	"iter"
)

// SequentialAgent runs its steps in order, each on the run's input, and
// fails fast on the first failure. After each step completes its final text
// is written to the run's [State] under the step's key, so a later step's
// instructions ([WithInstructionsFunc]) can read it. The run's final output
// is the last step's.
//
// The stream carries one RunStarted and one RunCompleted of its own (usage
// summed over the steps); each step's events follow an [AgentUpdated] naming
// it. A failing step's error ends the run as is.
//
// A step that pauses for approval ([RunPaused]) pauses the workflow: the
// steps after it have not run, and [Resume] continues at the paused step
// with the earlier steps' outputs restored to the run's [State].
type SequentialAgent struct {
	composite
	steps []step
}

// NewSequential builds a [SequentialAgent] from [Step] and [KeyedStep]
// options. It fails with a [*helikon.BuildError] for an empty name, no steps, a nil
// agent or two steps with one key.
//
//	pipeline, err := workflow.NewSequential("research-then-write",
//		workflow.Step(researcher),
//		workflow.Step(writer)) // writer's instructions read State "researcher"
func NewSequential(name string, opts ...WorkflowOption) (*SequentialAgent, error) {
	c, steps, err := buildSteps(name, opts)
	if err != nil {
		return nil, err
	}
	return &SequentialAgent{composite: c, steps: steps}, nil
}

// Run streams one run of the steps. See [Agent].
func (s *SequentialAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := s.begin(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		s.runSteps(ctx, rc, s.steps, input, frameSequential, 1, &stepsRun{outputs: make(map[string]string, len(s.steps))}, yield)
	}
}
