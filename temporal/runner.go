package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// Polling bounds of a streamed run's events query, and of the pause query
// of a run followed to its end.
const (
	minPoll      = 5 * time.Millisecond
	maxPoll      = 200 * time.Millisecond
	minPausePoll = 100 * time.Millisecond
	maxPausePoll = 2 * time.Second
)

// DefaultPersistTimeout bounds the session append after a run.
const DefaultPersistTimeout = 10 * time.Second

// Runner is the client side of durable runs: a [helikon.Runner] that starts
// each run as a workflow on a task queue and follows it to the end. The
// agent passed to Run only names the agent; a [Worker] on the queue must
// have registered an agent of that name, and that agent (its model, tools,
// settings and the worker's posture) is what runs.
//
// What crosses to the worker is the conversation (the session's history
// followed by the input) and the run's seed ([WithSeed]); the caller's
// RunContext does not. The run's Session is loaded before the run and
// appended to once, from this side, when the run ends; the terminal event
// waits for the append, and a failed one turns it into a RunFailed whose
// error is a [*runner.PersistError], as with the in-process runner.
type Runner struct {
	c              client.Client
	taskQueue      string
	seed           func(rc *helikon.RunContext) (any, error)
	workflowID     func(agent string) string
	runTimeout     time.Duration
	approval       time.Duration
	eager          bool
	persistTimeout time.Duration
	logger         *slog.Logger
}

var _ helikon.Runner = (*Runner)(nil)

// RunnerOption configures a [Runner].
type RunnerOption func(*Runner)

// WithSeed derives each run's seed from the caller's RunContext: an
// explicit, JSON-serialisable value (a tenant id, a user's claims) that the
// worker's [ContextFactory] turns into the run's user value. It is request
// data, never posture: the worker's [WorkerPosture] governs the run.
func WithSeed(f func(rc *helikon.RunContext) (any, error)) RunnerOption {
	return func(r *Runner) { r.seed = f }
}

// WithWorkflowID sets how a run's workflow id is chosen (default: a fresh
// run id, "helikon-run-<uuid>"). An id makes starting idempotent: starting
// a run whose id is running attaches to that run, and starting one whose
// run completed returns that run's outcome without running it again (the
// reuse policy is AllowDuplicateFailedOnly), while an id whose run failed,
// was cancelled or timed out runs anew.
func WithWorkflowID(f func(agent string) string) RunnerOption {
	return func(r *Runner) { r.workflowID = f }
}

// WithRunTimeout bounds each run's workflow (0: unbounded). A RunContext's
// RunConfig.Timeout, when set, wins. A run that outlasts it ends as an
// in-process run past its timeout does: a [helikon.ErrCancelled] failure
// that matches context.DeadlineExceeded, with Temporal's TimeoutError
// (go.temporal.io/sdk/temporal) as its cause. The workflow stops there; a
// step still running on a worker is not interrupted unless it heartbeats.
func WithRunTimeout(d time.Duration) RunnerOption {
	return func(r *Runner) { r.runTimeout = d }
}

// WithApprovalTimeout bounds how long a run that paused for approval
// waits for decisions (0: forever). When it passes, every pending call is
// rejected and the run goes on; the model sees the rejection.
func WithApprovalTimeout(d time.Duration) RunnerOption {
	return func(r *Runner) { r.approval = d }
}

// WithEagerStart asks for eager workflow start: when a [Worker] of the
// run's task queue runs in this process on the same client, the server
// hands the run's first workflow task back with the start's reply instead
// of through the task queue (docs/durable.md has the figures). Without
// such a worker the run starts as usual. A [Runner.Run] so started sends
// its wait update once the run has started rather than with the start
// (update-with-start does not take eager start), which takes a workflow
// task of its own.
func WithEagerStart() RunnerOption {
	return func(r *Runner) { r.eager = true }
}

// WithRunnerLogger sets where a failed session append is logged (default
// slog.Default()).
func WithRunnerLogger(l *slog.Logger) RunnerOption {
	return func(r *Runner) { r.logger = l }
}

// NewRunner returns a runner that starts runs on taskQueue through c.
func NewRunner(c client.Client, taskQueue string, opts ...RunnerOption) (*Runner, error) {
	if c == nil {
		return nil, errors.New("temporal: runner: client is required")
	}
	if taskQueue == "" {
		return nil, errors.New("temporal: runner: task queue is required")
	}
	r := &Runner{c: c, taskQueue: taskQueue, persistTimeout: DefaultPersistTimeout}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// Run runs agent durably to completion; see [Runner.RunStreamed]. It
// starts the run with its wait update ([WaitUpdate]) and learns from it,
// without polling, if the run pauses for approval; the result then ends
// with the run's RunPaused, as in process.
func (r *Runner) Run(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item) (*helikon.RunResult, error) {
	return helikon.Collect(r.stream(ctx, agent, rc, input, false))
}

// RunStreamed starts agent's run as a workflow and streams its events as
// the workflow records them: settled items, not the model's raw deltas,
// which stay on the worker. If ctx ends first, the stream ends with a
// Cancelled failure but the run goes on durably; cancel it with
// [Runner.Cancel].
func (r *Runner) RunStreamed(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return r.stream(ctx, agent, rc, input, true)
}

// Cancel asks the run with workflowID to stop; it ends with a Cancelled
// failure once its current step returns.
func (r *Runner) Cancel(ctx context.Context, workflowID string) error {
	return r.c.CancelWorkflow(ctx, workflowID, "")
}

func (r *Runner) stream(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, live bool) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if agent == nil {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindConfig, Message: "temporal: runner: agent is required"}})
			return
		}
		if rc == nil {
			rc = helikon.Ephemeral()
		}
		wr, wait, err := r.start(ctx, agent.Name(), rc, input, live)
		if err != nil {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: err})
			return
		}
		r.follow(ctx, rc, agent.Name(), wr, wait, 0, runner.NewSessionRecorder(input), live, yield)
	}
}

// follow streams a run's events from offset and records them into the
// session when the stream ends. The terminal event waits for the append,
// as with the in-process runner: a failed append replaces it with a
// RunFailed whose error is a [*runner.PersistError] holding the unsaved
// events. A paused run records what settled: its pending calls get their
// results when it resumes.
// wait, when not nil, waits for the run's wait update (see [WaitUpdate]),
// which tells a follower that does not stream of a pause.
func (r *Runner) follow(ctx context.Context, rc *helikon.RunContext, agent string, wr client.WorkflowRun, wait waitFunc, offset int, rec *runner.SessionRecorder, live bool, yield func(helikon.Event) bool) {
	var final helikon.Event
	stopped := false
	f := follower{c: r.c, wr: wr, wait: wait, agent: agent, next: offset, yield: func(ev helikon.Event) bool {
		rec.Observe(ev)
		switch ev.(type) {
		case helikon.RunCompleted, helikon.RunFailed, helikon.RunPaused:
			final = ev
			return true
		}
		if !yield(ev) {
			stopped = true
			return false
		}
		return true
	}}
	f.run(ctx, live)
	evs := rec.Take()
	if !f.paused {
		evs = append(evs, rec.Drain()...)
	}
	if pe := r.persist(ctx, rc.Session(), evs); pe != nil && final != nil {
		final = pe.Fail(final)
	}
	if !stopped && final != nil {
		yield(final)
	}
}

// start loads the session's history and starts the run's workflow. A run
// that is not streamed starts with its wait update (update-with-start, so
// the first workflow task takes it), for which it returns the wait; with
// eager start, which update-with-start does not take, the wait sends the
// update once the run has started. A streamed run's events say when it
// pauses.
func (r *Runner) start(ctx context.Context, agent string, rc *helikon.RunContext, input []helikon.Item, live bool) (client.WorkflowRun, waitFunc, error) {
	fail := func(kind helikon.ErrorKind, msg string, err error) (client.WorkflowRun, waitFunc, error) {
		return nil, nil, &helikon.AgentError{Kind: kind, Agent: agent, Message: msg + ": " + err.Error(), Err: err}
	}
	history, err := rc.Session().Snapshot(ctx)
	if err != nil {
		return fail(helikon.KindOther, "load session", err)
	}
	in := runInput{Agent: agent, Input: append(history[:len(history):len(history)], input...), ApprovalTimeout: r.approval}
	if r.seed != nil {
		v, err := r.seed(rc)
		if err != nil {
			return fail(helikon.KindConfig, "run seed", errors.Join(ErrBadSeed, err))
		}
		if in.Seed, err = json.Marshal(v); err != nil {
			return fail(helikon.KindConfig, "run seed", errors.Join(ErrBadSeed, err))
		}
		if len(in.Seed) > MaxSeedBytes {
			return fail(helikon.KindConfig, "run seed", fmt.Errorf("%w: %d bytes exceeds %d", ErrBadSeed, len(in.Seed), MaxSeedBytes))
		}
	}
	id := "helikon-run-" + uuid.NewString()
	if r.workflowID != nil {
		id = r.workflowID(agent)
	}
	timeout := r.runTimeout
	if cfg := rc.Config(); cfg != nil && cfg.Timeout > 0 {
		timeout = cfg.Timeout
	}
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                r.taskQueue,
		WorkflowRunTimeout:       timeout,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}
	if live || r.eager {
		opts.EnableEagerStart = r.eager
		wr, err := r.c.ExecuteWorkflow(ctx, opts, WorkflowName, in)
		if err != nil {
			return fail(helikon.KindOther, "start workflow", err)
		}
		if live {
			return wr, nil, nil
		}
		return wr, sendWait(r.c, wr, ""), nil
	}
	op := r.c.NewWithStartWorkflowOperation(opts, WorkflowName, in)
	wait, err := r.c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions:          client.UpdateWorkflowOptions{UpdateName: WaitUpdate, Args: []any{waitIn{}}, WaitForStage: client.WorkflowUpdateStageAccepted},
	})
	if err == nil {
		wr, err := op.Get(ctx)
		if err != nil {
			return fail(helikon.KindOther, "start workflow", err)
		}
		return wr, awaitHandle(wait), nil
	}
	// The start or the update was refused. If a run of the id exists (it
	// completed, which the reuse policy does not start again, or it took
	// no update), follow it without the update; otherwise the start
	// failed.
	if ctx.Err() == nil {
		if _, derr := r.c.DescribeWorkflowExecution(ctx, id, ""); derr == nil {
			return r.c.GetWorkflow(ctx, id, ""), nil, nil
		}
	}
	return fail(helikon.KindOther, "start workflow", err)
}

// persist appends a run's session events. It runs on a context that
// outlives a cancelled caller, bounded by the persist timeout, so the run's
// record is not lost with the caller. A failure is logged and returned.
func (r *Runner) persist(ctx context.Context, s helikon.Session, evs []helikon.SessionEvent) *runner.PersistError {
	if len(evs) == 0 {
		return nil
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.persistTimeout)
	defer cancel()
	if err := s.Append(actx, evs...); err != nil {
		logger := r.logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.ErrorContext(ctx, "temporal: session append failed", "events", len(evs), "err", err)
		return &runner.PersistError{Unsaved: evs, Err: err}
	}
	return nil
}
