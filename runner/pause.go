package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"iter"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// The errors of resuming a paused run by its id. Match them with
// errors.Is.
var (
	// ErrUnknownRun reports a run id the session holds no pause of: a
	// wrong id, or a session that was deleted or never held the run.
	ErrUnknownRun = errors.New("runner: no paused run with this id in the session")
	// ErrAlreadyResumed reports a pause that was resumed already, by this
	// process or another: each pause resumes once.
	ErrAlreadyResumed = errors.New("runner: the paused run was already resumed")
	// ErrPauseSuperseded reports a pause after which the session moved on:
	// a later run abandoned the paused calls.
	ErrPauseSuperseded = errors.New("runner: the session moved on after the run paused")
)

// Pause is a paused run as its session records it.
type Pause struct {
	RunID   string
	PauseID string
	Agent   string
	// Pending lists the calls awaiting a decision.
	Pending []helikon.PendingApproval
	// Seq and Time place the pause in the session's log.
	Seq  helikon.SequenceID
	Time time.Time
	// State is the run's state, as [helikon.Resume] takes it.
	State *helikon.RunState
}

// Pending lists the session's paused runs that wait for decisions, oldest
// first: pauses not yet resumed and not abandoned by a later run.
func Pending(ctx context.Context, sess helikon.Session) ([]Pause, error) {
	evs, err := sess.Events(ctx, helikon.Beginning)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoadSession, err)
	}
	l := readPauses(evs)
	var out []Pause
	for _, id := range l.order {
		e := l.runs[id]
		if l.claimed[e.ev.PauseID] || e.superseded {
			continue
		}
		p, err := e.pause()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// SessionGrants returns the allow rules "always" decisions granted the
// session ([helikon.ScopeSession]). [Runner.ResumePaused] applies them by
// itself; for a new run on the session, pass them with
// [governance.WithAllowRules].
func SessionGrants(ctx context.Context, sess helikon.Session) ([]governance.AllowRule, error) {
	evs, err := sess.Events(ctx, helikon.Beginning)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoadSession, err)
	}
	return readPauses(evs).rules()
}

// ResumePaused continues the session's paused run runID with decisions;
// see [Runner.ResumePausedStreamed].
func (r *Runner) ResumePaused(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID string, decisions []helikon.Decision) (*helikon.RunResult, error) {
	return helikon.Collect(r.ResumePausedStreamed(ctx, agent, rc, runID, decisions))
}

// ResumePausedStreamed continues a run that paused under this runner,
// which recorded the pause in rc's session, so any process holding the
// session resumes it by run id, after a restart too. It reads the pause,
// checks the state and the decisions ([helikon.RunState.Check]), then
// claims the pause by appending a record of the resume: of two processes
// resuming one pause, the one whose claim the log holds first runs it, and
// the other fails with [ErrAlreadyResumed] before anything runs. Allow
// rules granted to the session ([helikon.ScopeSession]) apply to the
// resumed run, and the session ones among decisions are recorded. The
// resumed run is then recorded and persisted like any run; a run that
// pauses again records its new pause.
//
// A run id the session holds no pause of fails with [ErrUnknownRun], a
// pause resumed before with [ErrAlreadyResumed], and a pause after which
// another run went on in the session with [ErrPauseSuperseded].
func (r *Runner) ResumePausedStreamed(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID string, decisions []helikon.Decision) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, cancel, ok := prepare(ctx, agent, rc, yield)
		if !ok {
			return
		}
		defer cancel()
		fail := func(err error) {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindConfig, Agent: agent.Name(), Message: err.Error(), Err: err}})
		}
		sess := rc.Session()
		evs, err := sess.Events(ctx, helikon.Beginning)
		if err != nil {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: loadError(ctx, agent, err)})
			return
		}
		l := readPauses(evs)
		e, ok := l.runs[runID]
		switch {
		case !ok:
			fail(fmt.Errorf("%w: %q", ErrUnknownRun, runID))
			return
		case l.claimed[e.ev.PauseID]:
			fail(fmt.Errorf("%w: run %q, pause %q", ErrAlreadyResumed, runID, e.ev.PauseID))
			return
		case e.superseded:
			fail(fmt.Errorf("%w: run %q", ErrPauseSuperseded, runID))
			return
		}
		p, err := e.pause()
		if err != nil {
			fail(err)
			return
		}
		if err := p.State.Check(rc, decisions); err != nil {
			fail(err)
			return
		}
		grants, err := l.rules()
		if err != nil {
			fail(err)
			return
		}
		if len(grants) > 0 {
			rc = rc.Derive(governance.WithAllowRules(grants...))
		}
		if err := claim(ctx, sess, p, decisions); err != nil {
			fail(err)
			return
		}
		r.follow(ctx, agent, rc, helikon.Resume(ctx, agent, rc, p.State, decisions), nil, nil, yield)
	}
}

// claim appends the claim of p's resume, with the session-scope grants of
// decisions, and checks that it is the first claim on p in the log.
func claim(ctx context.Context, sess helikon.Session, p Pause, decisions []helikon.Decision) error {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token := hex.EncodeToString(b[:])
	batch := []helikon.SessionEvent{session.ResumeClaimed(p.RunID, p.PauseID, token)}
	for _, d := range decisions {
		if d.Kind == helikon.DecisionAlways && d.Scope == helikon.ScopeSession {
			rule := d.Rule
			if rule == "" {
				rule = toolOf(p.Pending, d.ID)
			}
			batch = append(batch, session.PermissionGranted(p.RunID, rule))
		}
	}
	if err := sess.Append(ctx, batch...); err != nil {
		return fmt.Errorf("runner: claim the paused run: %w", err)
	}
	after, err := sess.Events(ctx, p.Seq)
	if err != nil {
		return fmt.Errorf("runner: claim the paused run: %w", err)
	}
	for _, ev := range after {
		if ev.Kind == helikon.KindRunResumed && ev.PauseID == p.PauseID {
			if ev.Name == token {
				return nil
			}
			break
		}
	}
	return fmt.Errorf("%w: run %q, pause %q (another process claimed it first)", ErrAlreadyResumed, p.RunID, p.PauseID)
}

func toolOf(pending []helikon.PendingApproval, id string) string {
	for _, p := range pending {
		if p.ID == id {
			return p.Tool
		}
	}
	return ""
}

// pauseLog is what a session's log says about its pauses.
type pauseLog struct {
	runs    map[string]*pauseEntry // each run's newest pause, by run id
	order   []string               // run ids, by their newest pause
	claimed map[string]bool        // pause ids resumed
	grants  []string
}

type pauseEntry struct {
	ev helikon.SessionEvent
	// superseded is set when conversation went on in the session after
	// the pause, before any claim.
	superseded bool
}

func readPauses(evs []helikon.SessionEvent) *pauseLog {
	l := &pauseLog{runs: map[string]*pauseEntry{}, claimed: map[string]bool{}}
	for _, ev := range evs {
		switch ev.Kind {
		case helikon.KindRunPaused:
			if _, seen := l.runs[ev.RunID]; seen {
				for i, id := range l.order {
					if id == ev.RunID {
						l.order = append(l.order[:i], l.order[i+1:]...)
						break
					}
				}
			}
			l.runs[ev.RunID] = &pauseEntry{ev: ev}
			l.order = append(l.order, ev.RunID)
		case helikon.KindRunResumed:
			l.claimed[ev.PauseID] = true
		case helikon.KindPermissionGranted:
			l.grants = append(l.grants, ev.Name)
		case helikon.KindHandoffOccurred, helikon.KindCompacted:
		default:
			for _, e := range l.runs {
				if !l.claimed[e.ev.PauseID] {
					e.superseded = true
				}
			}
		}
	}
	return l
}

func (l *pauseLog) rules() ([]governance.AllowRule, error) {
	rules := make([]governance.AllowRule, 0, len(l.grants))
	for _, g := range l.grants {
		r, err := governance.ParseAllowRule(g)
		if err != nil {
			return nil, fmt.Errorf("runner: session grant: %w", err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func (e *pauseEntry) pause() (Pause, error) {
	st, err := helikon.UnmarshalRunState(e.ev.State)
	if err != nil {
		return Pause{}, fmt.Errorf("runner: paused run %q: %w", e.ev.RunID, err)
	}
	return Pause{RunID: e.ev.RunID, PauseID: e.ev.PauseID, Agent: e.ev.Agent, Pending: st.Pending, Seq: e.ev.Seq, Time: e.ev.Time, State: st}, nil
}

// lastEvents is the last batch of a run's recording. A paused run leaves
// its waiting calls open, with the pause's record after them: the resume
// records their results. Any other run's end closes every open call.
func lastEvents(rec *SessionRecorder, final helikon.Event) []helikon.SessionEvent {
	p, ok := final.(helikon.RunPaused)
	if !ok || p.State == nil || p.State.RunID == "" {
		return rec.Drain()
	}
	marker, err := session.PauseRecorded(p.State)
	if err != nil {
		return rec.Drain()
	}
	return append(rec.Take(), marker)
}
