package runner

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"time"

	"github.com/paigasus/helikon"
)

// DefaultPersistTimeout bounds one session append when no
// [WithPersistTimeout] is given.
const DefaultPersistTimeout = 10 * time.Second

// ErrLoadSession reports a session whose history could not be read: the run
// does not start, since it could not faithfully continue the conversation.
var ErrLoadSession = errors.New("runner: load session")

// ErrNoAgent reports a run started without an agent.
var ErrNoAgent = errors.New("runner: agent is required")

// ErrNothingToResume reports a session whose conversation does not await
// an answer: it is empty, or its last message is the assistant's.
var ErrNothingToResume = errors.New("runner: nothing to resume")

// Runner is the default [helikon.Runner]: it runs agents in the calling
// goroutine, loading the session's history before a run and persisting the
// run's events as it goes. The zero value is ready to use; a Runner is safe
// for concurrent use.
type Runner struct {
	logger         *slog.Logger
	persistTimeout time.Duration
}

var _ helikon.Runner = (*Runner)(nil)

// Option configures a [Runner].
type Option func(*Runner)

// WithLogger sets where failed session appends are logged (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.logger = l } }

// WithPersistTimeout bounds each session append. Appends run on a context
// that is not cancelled with the run, so a cancelled or timed-out run still
// records what it did; this timeout keeps a stuck backend from holding the
// caller. Default [DefaultPersistTimeout].
func WithPersistTimeout(d time.Duration) Option {
	return func(r *Runner) { r.persistTimeout = d }
}

// New returns a Runner.
func New(opts ...Option) *Runner {
	r := &Runner{}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Run drives agent over input to completion; see [Runner.RunStreamed]. A
// failed run returns its [*helikon.RunResult] (events and usage so far)
// together with the error.
func (r *Runner) Run(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item) (*helikon.RunResult, error) {
	return helikon.Collect(r.RunStreamed(ctx, agent, rc, input))
}

// RunStreamed runs agent over the session's history followed by input and
// streams the run's events.
//
// Before the run it reads the history with the session's Snapshot; a read
// failure ends the stream with a RunFailed wrapping [ErrLoadSession]. As the
// run goes, a [SessionRecorder] turns its events into session
// events, which the runner appends at every turn boundary where no tool
// call is outstanding, and once more when the run ends (with a synthetic
// error result for any call the run's end interrupted). That last append
// runs on a context detached from the run's cancellation and timeout and
// bounded by [WithPersistTimeout], and the terminal event is delivered
// after it. An append that fails during the run is logged and retried with
// the next batch; when the last one fails, the run ends with a
// [helikon.RunFailed] whose error is a [*PersistError] holding the unsaved
// events (and the run's own failure, if any): a run's events are never
// lost with only a log line to say so. RunConfig.Timeout, when the
// RunContext sets one, bounds the whole run, loading included, but not
// the last append. A terminal event the agent already emitted stands even
// when the context is cancelled afterwards.
func (r *Runner) RunStreamed(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		r.stream(ctx, agent, rc, input, planRun, yield)
	}
}

// Resume continues the session's conversation where it stopped, with no
// new input; see [Runner.ResumeStreamed].
func (r *Runner) Resume(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext) (*helikon.RunResult, error) {
	return helikon.Collect(r.ResumeStreamed(ctx, agent, rc))
}

// ResumeStreamed continues the session's conversation where it stopped:
// after a crash, a cancelled run or a failed append, the log ends with a
// user message or tool results that no assistant answered yet, and the
// agent runs over that history with no new input. A tool call the log holds
// without a result (a log written by another process that crashed) first
// gets the same synthetic error result [SessionRecorder.Drain]
// gives interrupted calls. A log that is empty or ends with the assistant's
// answer fails the stream with [ErrNothingToResume].
//
// Because the runner persists at every turn boundary, a crashed run
// resumes at the start of the turn it was in: the model call of that turn
// is repeated, completed tool calls are not.
func (r *Runner) ResumeStreamed(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		r.stream(ctx, agent, rc, nil, planResume, yield)
	}
}

// planner turns the session's history and a run's input into the items
// the run appends to that history (its conversation is history followed by
// them) and the fresh items it records.
type planner func(agent helikon.Agent, history, input []helikon.Item) (appended, fresh []helikon.Item, err error)

// planRun runs the history followed by input and records input.
func planRun(_ helikon.Agent, history, input []helikon.Item) (appended, fresh []helikon.Item, err error) {
	// A run left paused or crashed left its last calls without results;
	// a new run abandons them as a crash resume does.
	if repair := interruptedResults(history); len(repair) > 0 {
		fresh = append(repair, input...)
		return fresh, fresh, nil
	}
	return input, input, nil
}

// planResume runs the history as it stands, after a synthetic result for
// each call it left without one, and records those results.
func planResume(agent helikon.Agent, history, _ []helikon.Item) (appended, fresh []helikon.Item, err error) {
	repair := interruptedResults(history)
	if !awaitsAnswer(history, repair) {
		return nil, nil, &helikon.AgentError{
			Kind: helikon.KindOther, Agent: agent.Name(),
			Message: ErrNothingToResume.Error(), Err: ErrNothingToResume,
		}
	}
	return repair, repair, nil
}

// stream runs one run of agent: it applies the run's timeout, loads the
// session's history, lets plan turn it and input into the conversation to
// run and the fresh items to record, and drives the agent. plan is a
// top-level function rather than a closure so that a run does not
// allocate one.
func (r *Runner) stream(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, plan planner, yield func(helikon.Event) bool) {
	ctx, rc, cancel, ok := prepare(ctx, agent, rc, yield)
	if !ok {
		return
	}
	defer cancel()
	history, err := loadHistory(ctx, rc.Session())
	if err != nil {
		yield(helikon.RunFailed{At: time.Now().UTC(), Err: loadError(ctx, agent, err)})
		return
	}
	appended, fresh, err := plan(agent, history, input)
	if err != nil {
		yield(helikon.RunFailed{At: time.Now().UTC(), Err: err})
		return
	}
	r.follow(ctx, agent, rc, run(ctx, agent, rc, history, appended), nil, fresh, yield)
}

// run starts agent over history followed by appended. history is the
// session's, possibly shared with other runs (a cached projection): an
// agent that takes it apart ([helikon.HistoryRunner]) copies it once into
// its own conversation; any other gets the two in a new slice of its own.
func run(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, history, appended []helikon.Item) iter.Seq[helikon.Event] {
	if len(history) == 0 {
		// An agent run directly gets the caller's input slice as it is;
		// a new session's run passes it on the same way, uncopied.
		return agent.Run(ctx, rc, appended)
	}
	if hr, ok := agent.(helikon.HistoryRunner); ok {
		return hr.RunWithHistory(ctx, rc, history, appended)
	}
	conv := make([]helikon.Item, 0, len(history)+len(appended))
	return agent.Run(ctx, rc, append(append(conv, history...), appended...))
}

// SharedSnapshotter is a session that can hand out its projection without
// copying it, as a session of package session/sessioncache does: the list
// is shared with other runs, and the runner never writes to it (it is the
// history of [helikon.HistoryRunner.RunWithHistory]). Any other session's
// Snapshot is read.
type SharedSnapshotter interface {
	SharedSnapshot(ctx context.Context) ([]helikon.Item, error)
}

// loadHistory reads the history of a run on s.
func loadHistory(ctx context.Context, s helikon.Session) ([]helikon.Item, error) {
	if ss, ok := s.(SharedSnapshotter); ok {
		return ss.SharedSnapshot(ctx)
	}
	return s.Snapshot(ctx)
}

// prepare checks that there is an agent, defaults rc and applies the run's
// timeout. When ok is false the run already failed; otherwise cancel must
// be called.
func prepare(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, yield func(helikon.Event) bool) (_ context.Context, _ *helikon.RunContext, cancel context.CancelFunc, ok bool) {
	if agent == nil {
		yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindConfig, Message: ErrNoAgent.Error(), Err: ErrNoAgent}})
		return ctx, rc, nil, false
	}
	if rc == nil {
		rc = helikon.Ephemeral()
	}
	ctx, cancel = withTimeout(ctx, rc)
	return ctx, rc, cancel, true
}

func withTimeout(ctx context.Context, rc *helikon.RunContext) (context.Context, context.CancelFunc) {
	if cfg := rc.Config(); cfg != nil && cfg.Timeout > 0 {
		return context.WithTimeout(ctx, cfg.Timeout)
	}
	return ctx, func() {}
}

// loadError reports a failed session load; one that failed because the run
// was cancelled is a cancellation.
func loadError(ctx context.Context, agent helikon.Agent, err error) error {
	return &helikon.AgentError{
		Kind: kindOf(ctx), Agent: agent.Name(),
		Message: ErrLoadSession.Error() + ": " + err.Error(),
		Err:     errors.Join(ErrLoadSession, err),
	}
}

// follow records and persists stream, a run of agent (or its resume),
// after lead and fresh: events and items the session does not hold yet.
func (r *Runner) follow(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, stream iter.Seq[helikon.Event], lead []helikon.SessionEvent, fresh []helikon.Item, yield func(helikon.Event) bool) {
	st := &runState{ctx: ctx, yield: yield, p: persister{r: r, sess: rc.Session(), agent: agent.Name()}}
	for _, ev := range lead {
		st.rec.add(ev)
	}
	st.rec.Record(fresh)
	stream(st.event)
	persistErr := st.p.finish(ctx, lastEvents(&st.rec, st.final))
	if st.stopped {
		return
	}
	final := st.final
	if final == nil {
		// Every stream ends with a terminal event, even an agent's that
		// forgot one.
		err := ctx.Err()
		if err == nil {
			err = errors.New("agent stream ended without a terminal event")
		}
		final = helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: kindOf(ctx), Agent: agent.Name(), Message: err.Error(), Err: err}}
	}
	if persistErr != nil {
		final = persistErr.Fail(final)
	}
	yield(final)
}

// runState is one run as the runner follows it. It holds the run's
// recorder by value: one allocation for both.
type runState struct {
	ctx     context.Context
	rec     SessionRecorder
	yield   func(helikon.Event) bool
	p       persister
	final   helikon.Event // the agent's terminal event, held until persisted
	stopped bool
}

func (st *runState) event(ev helikon.Event) bool {
	st.rec.Observe(ev)
	switch ev.(type) {
	case helikon.TurnStarted:
		if st.rec.Settled() {
			st.p.persist(st.ctx, st.rec.Take())
		}
	case helikon.RunCompleted, helikon.RunFailed, helikon.RunPaused:
		st.final = ev
		return true
	}
	if !st.yield(ev) {
		st.stopped = true
		return false
	}
	return true
}

func kindOf(ctx context.Context) helikon.ErrorKind {
	if ctx.Err() != nil {
		return helikon.KindCancelled
	}
	return helikon.KindOther
}

// persister appends a run's session events, carrying a failed batch over to
// the next attempt so the log never has a gap.
type persister struct {
	r       *Runner
	sess    helikon.Session
	agent   string
	pending []helikon.SessionEvent
}

// persist appends events during the run, on the run's context. A batch
// that fails (a cancelled run's, a backend's hiccup) is carried over to the
// next append, the final one at the latest.
func (p *persister) persist(ctx context.Context, events []helikon.SessionEvent) {
	_ = p.append(ctx, ctx, events)
}

// finish appends the last batch, with every batch carried over to it, on
// a context that outlives the run's cancellation and timeout, bounded by
// the persist timeout: a run whose deadline passes while it is being
// stored keeps its record. It reports the events it could not store.
func (p *persister) finish(ctx context.Context, events []helikon.SessionEvent) *PersistError {
	if len(p.pending) == 0 && len(events) == 0 {
		return nil
	}
	timeout := p.r.persistTimeout
	if timeout <= 0 {
		timeout = DefaultPersistTimeout
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if err := p.append(ctx, actx, events); err != nil {
		return &PersistError{Unsaved: p.pending, Err: err}
	}
	return nil
}

func (p *persister) append(ctx, actx context.Context, events []helikon.SessionEvent) error {
	if len(p.pending) > 0 {
		events = append(p.pending, events...)
	}
	if len(events) == 0 {
		return nil
	}
	if err := p.sess.Append(actx, events...); err != nil {
		p.pending = events
		logger := p.r.logger
		if logger == nil {
			logger = slog.Default()
		}
		if actx.Err() != nil && actx == ctx {
			// The run was cancelled (its client went away) mid-run: the
			// batch goes with the final append, on a context of its own,
			// which reports it if it fails too. Nothing failed yet.
			logger.DebugContext(ctx, "runner: session append deferred to the run's end: the run's context ended",
				"agent", p.agent, "events", len(events), "err", err)
			return err
		}
		logger.ErrorContext(ctx, "runner: session append failed",
			"agent", p.agent, "events", len(events), "err", err)
		return err
	}
	p.pending = nil
	return nil
}

// interruptedResults returns an error result for each tool use of the
// log's last assistant message that has no result yet.
func interruptedResults(history []helikon.Item) []helikon.Item {
	last := -1
	for i := len(history) - 1; i >= 0 && last < 0; i-- {
		switch history[i].Role {
		case helikon.RoleAssistant:
			last = i
		case helikon.RoleTool:
		default:
			return nil
		}
	}
	if last < 0 {
		return nil
	}
	answered := make(map[string]bool)
	for _, it := range history[last+1:] {
		for _, p := range it.Content {
			if res, ok := p.(helikon.ToolResultPart); ok {
				answered[res.CallID] = true
			}
		}
	}
	var out []helikon.Item
	for _, u := range history[last].ToolUses() {
		if !answered[u.CallID] {
			out = append(out, helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
				CallID: u.CallID, Name: u.Name, IsError: true,
				Content: []helikon.ContentPart{helikon.TextPart{Text: InterruptedToolResult}},
			}}})
		}
	}
	return out
}

// awaitsAnswer reports whether history followed by tail ends with
// something the assistant has not answered: a user message or tool
// results.
func awaitsAnswer(history, tail []helikon.Item) bool {
	for _, conv := range [2][]helikon.Item{tail, history} {
		for i := len(conv) - 1; i >= 0; i-- {
			switch conv[i].Role {
			case helikon.RoleUser, helikon.RoleTool:
				return true
			case helikon.RoleAssistant:
				return len(conv[i].ToolUses()) > 0
			}
		}
	}
	return false
}
