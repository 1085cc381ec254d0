package workflow

import (
	"context"
	"github.com/paigasus/helikon"
	"iter"
)

// This file runs the steps of a [SequentialAgent] or a [LoopAgent], fresh
// or resumed from a pause: a step that pauses pauses the workflow, which
// keeps the finished steps' outputs and resumes at the paused step.

// stepsRun is the position and tally of one sequential or loop run.
type stepsRun struct {
	iter, idx int
	total     helikon.Usage
	// outputs holds the newest final text of every step that finished, by
	// key, so a resumed run can restore the run's State.
	outputs map[string]string
	// resume, when set, is where the step at idx resumes.
	resume *ResumePoint
}

// runSteps runs steps from the run's position: iterations passes (1 for a
// sequential agent); with loop, an escalation completes the run and a
// spent budget fails it.
func (c *composite) runSteps(ctx context.Context, rc *helikon.RunContext, steps []step, input []helikon.Item, kind string, iterations int, sr *stepsRun, yield func(helikon.Event) bool) {
	escalated := false
	last := helikon.RunCompleted{Agent: c.name}
	for ; sr.iter < iterations; sr.iter, sr.idx = sr.iter+1, 0 {
		for ; sr.idx < len(steps); sr.idx++ {
			st := steps[sr.idx]
			from := sr.resume
			sr.resume = nil
			child, o, ok := c.runStep(ctx, rc, st, input, from, &sr.total, yield)
			if !ok {
				return
			}
			if o.Paused != nil {
				c.pauseSteps(rc, steps, input, kind, sr, o, yield)
				return
			}
			sr.outputs[st.key] = o.Final
			if kind == frameLoop {
				if child.Actions().Escalated() {
					yield(helikon.RunCompleted{Agent: o.Agent, Usage: sr.total, Structured: o.Structured})
					return
				}
				continue
			}
			last.Agent, last.Structured = o.Agent, o.Structured
			escalated = escalated || child.Actions().Escalated()
		}
	}
	if kind == frameLoop {
		yield(helikon.RunFailed{Err: agentErrorf(helikon.KindMaxIterationsExceeded, c.name, "%d iterations ended without an escalation", iterations)})
		return
	}
	// An escalation inside a step is this run's, for an enclosing loop.
	if escalated {
		rc.Actions().Escalate()
	}
	last.Usage = sr.total
	yield(last)
}

// pauseSteps ends the run paused at step sr.idx, whose run paused with o.
func (c *composite) pauseSteps(rc *helikon.RunContext, steps []step, input []helikon.Item, kind string, sr *stepsRun, o helikon.ChildOutcome, yield func(helikon.Event) bool) {
	f := &helikon.PauseFrame{Kind: kind, Agent: c.name, Usage: sr.total, Input: input, Step: sr.idx, Iteration: sr.iter}
	for i, st := range steps {
		if i == sr.idx {
			f.Children = append(f.Children, helikon.ChildFrame{Key: st.key, Status: helikon.ChildPaused, Usage: o.Usage, Frame: o.Paused.Frame()})
		} else if out, ok := sr.outputs[st.key]; ok {
			f.Children = append(f.Children, helikon.ChildFrame{Key: st.key, Status: helikon.ChildDone, Output: out})
		}
	}
	helikon.EmitPaused(rc, c.name, f, sr.total.Add(o.Usage), yield)
}

// restoreSteps reads a sequential or loop frame back into a run position,
// restoring the finished steps' outputs to the run's State.
func (c *composite) restoreSteps(rc *helikon.RunContext, steps []step, kind string, iterations int, f *helikon.PauseFrame, ds *helikon.Decisions) (*stepsRun, []helikon.Item, error) {
	if f == nil || f.Kind != kind || f.Agent != c.name || f.Step < 0 || f.Step >= len(steps) || f.Iteration < 0 || f.Iteration >= iterations {
		return nil, nil, helikon.NotResumable(c.name, f)
	}
	sr := &stepsRun{iter: f.Iteration, idx: f.Step, total: f.Usage, outputs: make(map[string]string, len(steps))}
	for _, ch := range f.Children {
		switch {
		case ch.Status == helikon.ChildDone:
			sr.outputs[ch.Key] = ch.Output
			rc.State().SetString(ch.Key, ch.Output)
		case ch.Status == helikon.ChildPaused && ch.Key == steps[f.Step].key && ch.Frame != nil:
			sr.resume = &ResumePoint{Frame: ch.Frame, Decisions: ds}
		default:
			return nil, nil, helikon.NotResumable(c.name, f)
		}
	}
	if sr.resume == nil {
		return nil, nil, helikon.NotResumable(c.name, f)
	}
	return sr, f.Input, nil
}

// resumeSteps is the ResumeFrame of a sequential or loop agent.
func (c *composite) resumeSteps(ctx context.Context, rc *helikon.RunContext, steps []step, kind string, iterations int, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := c.open(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		sr, input, err := c.restoreSteps(rc, steps, kind, iterations, f, ds)
		if err != nil {
			yield(helikon.RunFailed{Err: err})
			return
		}
		c.runSteps(ctx, rc, steps, input, kind, iterations, sr, yield)
	}
}

// ResumeFrame continues the workflow at the step that paused, with the
// earlier steps' outputs restored to the run's State. See [helikon.Resumer].
func (s *SequentialAgent) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return s.resumeSteps(ctx, rc, s.steps, frameSequential, 1, f, ds)
}

// ResumeFrame continues the loop at the step and iteration that paused.
// See [helikon.Resumer].
func (l *LoopAgent) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return l.resumeSteps(ctx, rc, l.steps, frameLoop, l.maxIterations, f, ds)
}
