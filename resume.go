package helikon

import (
	"context"
	"iter"
	"slices"
)

// Resume continues a run that paused for approval ([RunPaused]) with the
// human's decisions, one per approval id of state.Pending ([Decision]).
// agent must be the agent that paused; rc may differ from the paused run's
// context but must carry its key ([WithRunStateKey]) if the state was
// signed. Before anything runs Resume checks the state and the decisions
// ([RunState.Check]); a failed check ends the stream with a RunFailed.
//
// Calls that settled before the pause are not run again. A call without a
// decision keeps waiting: the resumed run pauses again (a new PauseID, the
// same RunID and approval ids) once everything else it can do is done.
// The resumed stream carries the events after the pause (no RunStarted, no
// input guardrails or OnRunStart hooks); its usage and budget count what
// the run spent before it. Resuming one state twice runs the decided calls
// twice: a runner that stores paused states makes each resumable once.
func Resume(ctx context.Context, agent Agent, rc *RunContext, state *RunState, decisions []Decision) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		rc = orEphemeral(rc)
		name := ""
		if agent != nil {
			name = agent.Name()
		}
		fail := func(kind ErrorKind, err error) {
			yield(RunFailed{At: now(), Err: &AgentError{Kind: kind, Agent: name, Message: err.Error(), Err: err}})
		}
		ds, err := state.check(rc, decisions)
		if err != nil {
			fail(KindConfig, err)
			return
		}
		r, ok := agent.(Resumer)
		if !ok || name != state.Agent {
			fail(KindConfig, NotResumable(name, state.root))
			return
		}
		allow := slices.Concat(state.Allow, ds.grants)
		if len(allow) > 0 {
			rc = rc.Derive(WithGrants(allow...))
		}
		if rc.settings().budget.set() && rc.settings().meter == nil {
			// The run's budget counts what it spent before the pause.
			c := *rc
			c.setting().meter = &budgetMeter{limit: c.settings().budget, used: state.Usage}
			rc = &c
		}
		for ev := range r.ResumeFrame(ctx, rc, state.root, ds) {
			if p, ok := ev.(RunPaused); ok && p.State != nil {
				// The run pauses again: it is the same run, and what it was
				// granted stays granted.
				next := *p.State
				next.RunID, next.Allow = state.RunID, allow
				if err := next.seal(rc.settings().stateKey); err != nil {
					fail(KindOther, err)
					return
				}
				p.State = &next
				ev = p
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// Check reports whether [Resume] would accept the state and decisions under
// rc: the version ([ErrRunStateVersion]), the checksum or signature with
// rc's key ([ErrRunStateTampered]), every decision against the pending
// approvals ([ErrUnknownApproval], [ErrInvalidDecision]). A store checks
// before it marks a pause as taken, so a bad decision does not use it up.
func (s *RunState) Check(rc *RunContext, decisions []Decision) error {
	_, err := s.check(orEphemeral(rc), decisions)
	return err
}

func (s *RunState) check(rc *RunContext, decisions []Decision) (*Decisions, error) {
	switch {
	case s == nil:
		return nil, ErrNotResumable
	case s.Version != RunStateVersion:
		return nil, &RunStateVersionError{Version: s.Version}
	}
	if err := s.verify(rc.settings().stateKey); err != nil {
		return nil, err
	}
	return newDecisionSet(rc, s, decisions)
}
