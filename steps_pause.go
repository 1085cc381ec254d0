package helikon

import (
	"context"
	"iter"
)

// This file runs the steps of a [SequentialAgent] or a [LoopAgent], fresh
// or resumed from a pause: a step that pauses pauses the workflow, which
// keeps the finished steps' outputs and resumes at the paused step.

// stepsRun is the position and tally of one sequential or loop run.
type stepsRun struct {
	iter, idx int
	total     Usage
	// outputs holds the newest final text of every step that finished, by
	// key, so a resumed run can restore the run's State.
	outputs map[string]string
	// resume, when set, is where the step at idx resumes.
	resume *resumeFrom
}

// runSteps runs steps from the run's position: iterations passes (1 for a
// sequential agent); with loop, an escalation completes the run and a
// spent budget fails it.
func (c *composite) runSteps(ctx context.Context, rc *RunContext, steps []step, input []Item, kind string, iterations int, sr *stepsRun, yield func(Event) bool) {
	escalated := false
	last := RunCompleted{Agent: c.name}
	for ; sr.iter < iterations; sr.iter, sr.idx = sr.iter+1, 0 {
		for ; sr.idx < len(steps); sr.idx++ {
			st := steps[sr.idx]
			from := sr.resume
			sr.resume = nil
			child, o, ok := c.runStep(ctx, rc, st, input, from, &sr.total, yield)
			if !ok {
				return
			}
			if o.paused != nil {
				c.pauseSteps(rc, steps, input, kind, sr, o, yield)
				return
			}
			sr.outputs[st.key] = o.final
			if kind == frameLoop {
				if child.actions.Escalated() {
					yield(RunCompleted{Agent: o.agent, Usage: sr.total, Structured: o.structured})
					return
				}
				continue
			}
			last.Agent, last.Structured = o.agent, o.structured
			escalated = escalated || child.actions.Escalated()
		}
	}
	if kind == frameLoop {
		yield(RunFailed{Err: agentErrorf(KindMaxIterationsExceeded, c.name, "%d iterations ended without an escalation", iterations)})
		return
	}
	// An escalation inside a step is this run's, for an enclosing loop.
	if escalated {
		rc.actions.Escalate()
	}
	last.Usage = sr.total
	yield(last)
}

// pauseSteps ends the run paused at step sr.idx, whose run paused with o.
func (c *composite) pauseSteps(rc *RunContext, steps []step, input []Item, kind string, sr *stepsRun, o childOutcome, yield func(Event) bool) {
	f := &pauseFrame{Kind: kind, Agent: c.name, Usage: sr.total, Input: input, Step: sr.idx, Iteration: sr.iter}
	for i, st := range steps {
		if i == sr.idx {
			f.Children = append(f.Children, childFrame{Key: st.key, Status: childPaused, Usage: o.usage, Frame: o.paused.root})
		} else if out, ok := sr.outputs[st.key]; ok {
			f.Children = append(f.Children, childFrame{Key: st.key, Status: childDone, Output: out})
		}
	}
	emitPaused(rc, c.name, f, sr.total.Add(o.usage), yield)
}

// restoreSteps reads a sequential or loop frame back into a run position,
// restoring the finished steps' outputs to the run's State.
func (c *composite) restoreSteps(rc *RunContext, steps []step, kind string, iterations int, f *pauseFrame, ds *decisionSet) (*stepsRun, []Item, error) {
	if f == nil || f.Kind != kind || f.Agent != c.name || f.Step < 0 || f.Step >= len(steps) || f.Iteration < 0 || f.Iteration >= iterations {
		return nil, nil, notResumable(c.name, f)
	}
	sr := &stepsRun{iter: f.Iteration, idx: f.Step, total: f.Usage, outputs: make(map[string]string, len(steps))}
	for _, ch := range f.Children {
		switch {
		case ch.Status == childDone:
			sr.outputs[ch.Key] = ch.Output
			rc.state.Set(ch.Key, ch.Output)
		case ch.Status == childPaused && ch.Key == steps[f.Step].key && ch.Frame != nil:
			sr.resume = &resumeFrom{f: ch.Frame, ds: ds}
		default:
			return nil, nil, notResumable(c.name, f)
		}
	}
	if sr.resume == nil {
		return nil, nil, notResumable(c.name, f)
	}
	return sr, f.Input, nil
}

// resumeSteps is the resumeFrame of a sequential or loop agent.
func (c *composite) resumeSteps(ctx context.Context, rc *RunContext, steps []step, kind string, iterations int, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, rc, yield, done, ok := c.open(ctx, rc, yield, false)
		if !ok {
			return
		}
		defer done()
		sr, input, err := c.restoreSteps(rc, steps, kind, iterations, f, ds)
		if err != nil {
			yield(RunFailed{Err: err})
			return
		}
		c.runSteps(ctx, rc, steps, input, kind, iterations, sr, yield)
	}
}

func (s *SequentialAgent) resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return s.resumeSteps(ctx, rc, s.steps, frameSequential, 1, f, ds)
}

func (l *LoopAgent) resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return l.resumeSteps(ctx, rc, l.steps, frameLoop, l.maxIterations, f, ds)
}
