package evals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// AgentFactory builds the agent for one case. Build a fresh agent, with a
// fresh model, for every case when the model is stateful (a mock replaying
// scripts), so that concurrent cases cannot take each other's scripts.
type AgentFactory func(c *Case) (helikon.Agent, error)

// ContextFactory builds the RunContext one case runs on.
type ContextFactory func(c *Case) *helikon.RunContext

// Run runs a dataset through an agent and scores every case; build one
// with [NewRun] and start it with [Run.Execute]. A Run may be executed
// more than once; each execution is a new report.
type Run struct {
	ds         *Dataset
	factory    AgentFactory
	shared     helikon.Agent
	rcFactory  ContextFactory
	evaluators []Evaluator
	conc       int
	timeout    time.Duration
	runner     helikon.Runner
	progress   Progress
	sinks      []Sink
	runID      string
}

// RunOption configures a [Run].
type RunOption func(*Run)

// WithAgentFactory builds a fresh agent for every case.
func WithAgentFactory(f AgentFactory) RunOption { return func(r *Run) { r.factory = f } }

// WithAgent runs every case on one shared agent: right for agents whose
// model holds no per-run state (a live provider), wrong for a mock.
func WithAgent(a helikon.Agent) RunOption { return func(r *Run) { r.shared = a } }

// WithContextFactory sets the RunContext of each case (default: a fresh
// [helikon.NewRunContext], with its own in-memory session). Add a price
// table ([helikon.WithPrices]) here to get costs.
func WithContextFactory(f ContextFactory) RunOption { return func(r *Run) { r.rcFactory = f } }

// WithEvaluators adds evaluators; each scores every case that ran.
func WithEvaluators(e ...Evaluator) RunOption {
	return func(r *Run) { r.evaluators = append(r.evaluators, e...) }
}

// WithConcurrency runs up to n cases at once (default 1). Results keep
// the dataset's order whatever n is.
func WithConcurrency(n int) RunOption { return func(r *Run) { r.conc = n } }

// WithCaseTimeout bounds each case, its evaluators included (default: no
// bound beyond the caller's context).
func WithCaseTimeout(d time.Duration) RunOption { return func(r *Run) { r.timeout = d } }

// WithRunner sets the runner each case runs through (default
// [runner.New]).
func WithRunner(rn helikon.Runner) RunOption { return func(r *Run) { r.runner = rn } }

// WithProgress reports each case as it finishes; see [NewProgress].
func WithProgress(p Progress) RunOption { return func(r *Run) { r.progress = p } }

// WithSinks records every case once the run is over, in dataset order.
func WithSinks(s ...Sink) RunOption { return func(r *Run) { r.sinks = append(r.sinks, s...) } }

// WithRunID names the run in its report and sinks (default: the start
// time and a random suffix).
func WithRunID(id string) RunOption { return func(r *Run) { r.runID = id } }

// NewRun returns a run of ds. Exactly one of [WithAgentFactory] and
// [WithAgent] is required.
func NewRun(ds *Dataset, opts ...RunOption) (*Run, error) {
	r := &Run{ds: ds, conc: 1}
	for _, o := range opts {
		o(r)
	}
	switch {
	case ds == nil:
		return nil, errors.New("evals: dataset is required")
	case r.factory == nil && r.shared == nil:
		return nil, errors.New("evals: an agent or an agent factory is required")
	case r.factory != nil && r.shared != nil:
		return nil, errors.New("evals: give an agent or an agent factory, not both")
	case r.conc < 1:
		return nil, fmt.Errorf("evals: concurrency %d must be at least 1", r.conc)
	case r.timeout < 0:
		return nil, fmt.Errorf("evals: case timeout %v must not be negative", r.timeout)
	}
	for i, e := range r.evaluators {
		if e == nil {
			return nil, fmt.Errorf("evals: evaluator %d is nil", i)
		}
	}
	if r.runner == nil {
		r.runner = runner.New()
	}
	return r, nil
}

// ErrNotRun marks the cases a cancelled context kept from starting.
var ErrNotRun = errors.New("not run")

// Execute runs every case and returns the report. Cases a cancelled ctx
// kept from starting are reported as errors and Execute returns ctx's
// error with the report. The sinks record even a cancelled run, on a
// context that is not cancelled with it, so that what ran is kept; a
// sink's failure is returned with the report too. Failing cases are not
// an error: see [Report.Passed].
func (r *Run) Execute(ctx context.Context) (*Report, error) {
	rep := &Report{
		RunID:     r.runID,
		Dataset:   r.ds.Name,
		StartedAt: time.Now().UTC(),
		Cases:     make([]CaseResult, len(r.ds.Cases)),
	}
	if rep.RunID == "" {
		rep.RunID = newRunID(rep.StartedAt)
	}
	for _, e := range r.evaluators {
		rep.Evaluators = append(rep.Evaluators, e.Name())
	}
	if r.progress != nil {
		r.progress.Start(len(r.ds.Cases))
	}
	var (
		next   atomic.Int64
		mu     sync.Mutex
		tally  Tally
		wg     sync.WaitGroup
		notRun bool
	)
	for range min(r.conc, len(r.ds.Cases)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(r.ds.Cases) {
					return
				}
				res := &rep.Cases[i]
				if ctx.Err() != nil {
					*res = CaseResult{Index: i, Case: r.ds.Cases[i], Error: fmt.Sprintf("%v: %v", ErrNotRun, ctx.Err())}
					mu.Lock()
					notRun = true
					mu.Unlock()
				} else {
					r.runCase(ctx, i, res)
				}
				if r.progress != nil {
					mu.Lock()
					tally.count(res)
					r.progress.CaseDone(res, tally)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if r.progress != nil {
		r.progress.Finish()
	}
	rep.Duration = time.Since(rep.StartedAt)
	rep.Summarize()
	var errs []error
	if notRun {
		errs = append(errs, ctx.Err())
	}
	for _, s := range r.sinks {
		if err := s.Record(context.WithoutCancel(ctx), rep); err != nil {
			errs = append(errs, fmt.Errorf("evals: sink: %w", err))
		}
	}
	return rep, errors.Join(errs...)
}

// runCase runs case i into res.
func (r *Run) runCase(ctx context.Context, i int, res *CaseResult) {
	c := &r.ds.Cases[i]
	*res = CaseResult{Index: i, Case: *c, StartedAt: time.Now().UTC()}
	defer func() { res.Duration = time.Since(res.StartedAt) }()
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	agent, rc, err := r.prepare(c)
	if err != nil {
		res.Error = err.Error()
		return
	}
	out, err := r.drive(ctx, agent, rc, c, res)
	res.Usage = out.Usage
	if err != nil {
		res.Error = err.Error()
		return
	}
	res.Output, res.ToolCalls = out.FinalOutput, out.ToolCalls
	res.Scores = make([]Score, len(r.evaluators))
	for j, e := range r.evaluators {
		s, err := evaluate(ctx, e, c, out)
		if err != nil {
			s = Score{Verdict: Failed, Reason: "evaluator error: " + err.Error()}
		}
		s.Evaluator = e.Name()
		res.Scores[j] = s
		res.Usage = res.Usage.Add(s.Usage)
	}
}

// prepare builds the case's agent and RunContext; a panicking factory
// fails the case, not the process.
func (r *Run) prepare(c *Case) (agent helikon.Agent, rc *helikon.RunContext, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evals: building case %s panicked: %v", c.ID, p)
		}
	}()
	agent = r.shared
	if r.factory != nil {
		if agent, err = r.factory(c); err != nil {
			return nil, nil, fmt.Errorf("evals: building the agent: %w", err)
		}
		if agent == nil {
			return nil, nil, errors.New("evals: the agent factory returned no agent")
		}
	}
	if r.rcFactory != nil {
		rc = r.rcFactory(c)
	}
	if rc == nil {
		rc = helikon.NewRunContext()
	}
	return agent, rc, nil
}

// drive runs the case's agent, recording its trace into res.
func (r *Run) drive(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, c *Case, res *CaseResult) (out *Outcome, err error) {
	// An S1 run streams about a dozen events.
	out = &Outcome{Events: make([]helikon.Event, 0, 16)}
	var rec runner.SessionRecorder
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evals: the run panicked: %v", p)
		}
		res.Trace = rec.Drain()
	}()
	input := helikon.UserText(c.Input)
	rec.Record(input)
	start := time.Now()
	for ev := range r.runner.RunStreamed(ctx, agent, rc, input) {
		out.Events = append(out.Events, ev)
		rec.Observe(ev)
		switch e := ev.(type) {
		case helikon.MessageOutput:
			out.FinalOutput = e.Item.Text()
		case helikon.ToolCallItem:
			for _, u := range e.Item.ToolUses() {
				out.ToolCalls = append(out.ToolCalls, ToolCall{Name: u.Name, Args: u.Args})
			}
		case helikon.RunCompleted:
			out.Usage = e.Usage
		case helikon.RunFailed:
			out.Usage = e.Usage
			err = e.Err
			if err == nil {
				err = errors.New("run failed")
			}
		}
	}
	out.Duration = time.Since(start)
	return out, err
}

func newRunID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
