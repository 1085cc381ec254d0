package server

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
)

// Approvals is the body of GET /agents/{name}/runs/{id}/approvals: the
// calls a paused run waits on.
type Approvals struct {
	RunID   string                    `json:"run_id" jsonschema:"the run id"`
	PauseID string                    `json:"pause_id" jsonschema:"the pause the decisions answer"`
	Pending []helikon.PendingApproval `json:"pending" jsonschema:"the calls awaiting a decision"`
}

// ApprovalRequest is the body of POST /agents/{name}/runs/{id}/approvals:
// one decision per approval id. A call left without a decision keeps
// waiting: the continued run pauses again once it has done everything
// else.
type ApprovalRequest struct {
	// PauseID, when set, must name the run's current pause, so a decision
	// made on a stale view of the run is refused (409) instead of applied
	// to a later pause.
	PauseID   string             `json:"pause_id,omitempty" jsonschema:"the pause these decisions answer; a stale one is refused"`
	Decisions []helikon.Decision `json:"decisions" jsonschema:"one decision per approval id"`
}

// CodeNotPaused is the error code of an approvals request on a run that
// is not paused (or no longer at the pause the request names).
const CodeNotPaused = "run_not_paused"

func notPaused(info RunInfo) *Error {
	return errorf(http.StatusConflict, CodeNotPaused, "", "run "+info.ID+" is "+string(info.Status)+", not paused")
}

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	info, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if info.Status != StatusPaused {
		writeError(w, notPaused(info))
		return
	}
	writeJSON(w, http.StatusOK, Approvals{RunID: info.ID, PauseID: info.PauseID, Pending: info.Pending})
}

// decide continues a paused run with the caller's decisions, under the
// same run id, on this server: it claims the pause (so it resumes once,
// whichever replica is asked), reads the paused state from the event log
// and runs the rest in the background (202).
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	agent := s.agents[r.PathValue("name")]
	info, ok := s.runOf(w, r)
	if !ok {
		return
	}
	q, e := decodeBody[ApprovalRequest](w, r, s.limits)
	if e != nil {
		writeError(w, e)
		return
	}
	if info.Status != StatusPaused || (q.PauseID != "" && q.PauseID != info.PauseID) {
		writeError(w, notPaused(info))
		return
	}
	if e := checkDecisions(q.Decisions, info.Pending); e != nil {
		writeError(w, e)
		return
	}
	state, err := s.pausedState(r.Context(), info)
	if err != nil {
		writeError(w, s.unavailable("read the paused state", err))
		return
	}
	adm, e := s.admit(info.SessionID)
	if e != nil {
		writeError(w, e)
		return
	}
	defer adm.release()
	sess, err := s.sessions.Session(r.Context(), info.SessionID)
	if err != nil {
		writeError(w, s.providerError("open session", err))
		return
	}
	rc, err := s.contexts.RunContext(r, sess)
	if err != nil {
		writeError(w, s.providerError("build run context", err))
		return
	}
	claimed, err := s.log.Claim(r.Context(), info.ID, info.PauseID)
	switch {
	case errors.Is(err, ErrNotPaused):
		writeError(w, notPaused(info))
		return
	case err != nil:
		writeError(w, s.unavailable("claim the pause", err))
		return
	}
	lr, ctx, ok := s.launch(claimed, adm)
	if !ok {
		writeError(w, errorf(http.StatusServiceUnavailable, CodeShuttingDown, "", "the server is shutting down"))
		return
	}
	events := helikon.Resume(ctx, agent, rc, state, q.Decisions)
	if claimed.SessionID != "" {
		events = s.persisted(ctx, events, sess, claimed.Agent)
	}
	go s.drive(ctx, lr, claimed, events, claimed.LastEvent, adm.gate)
	writeAccepted(w, claimed.ID, "../"+claimed.ID) // relative to .../runs/{id}/approvals
}

// checkDecisions refuses decisions the core would fail the whole run
// for, so a typo costs the caller a 400 and not the run.
func checkDecisions(ds []helikon.Decision, pending []helikon.PendingApproval) *Error {
	if len(ds) == 0 {
		return errorf(http.StatusBadRequest, CodeMissingField, "decisions", "give at least one decision")
	}
	open := make(map[string]bool, len(pending))
	for _, p := range pending {
		open[p.ID] = true
	}
	seen := make(map[string]bool, len(ds))
	for i, d := range ds {
		field := fmt.Sprintf("decisions[%d]", i)
		switch {
		case !open[d.ID]:
			return errorf(http.StatusBadRequest, CodeBadRequest, field+".id", "no pending approval "+d.ID)
		case seen[d.ID]:
			return errorf(http.StatusBadRequest, CodeBadRequest, field+".id", "two decisions for "+d.ID)
		}
		seen[d.ID] = true
		switch d.Kind {
		case helikon.DecisionApprove, helikon.DecisionReject:
		case helikon.DecisionApproveWithArgs:
			if len(d.Args) == 0 {
				return errorf(http.StatusBadRequest, CodeMissingField, field+".args", "approve_with_args needs args")
			}
		case helikon.DecisionAlways:
			if d.Rule != "" {
				if _, err := helikon.ParseAllowRule(d.Rule); err != nil {
					return errorf(http.StatusBadRequest, CodeBadRequest, field+".rule", err.Error())
				}
			}
		default:
			return errorf(http.StatusBadRequest, CodeBadRequest, field+".kind", fmt.Sprintf("unknown decision kind %q", d.Kind))
		}
	}
	return nil
}

// pausedState reads the state from the run_paused record the pause
// appended: the log holds it for every replica.
func (s *Server) pausedState(ctx context.Context, info RunInfo) (*helikon.RunState, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for batch, err := range s.log.Tail(ctx, info.ID, info.LastEvent-1) {
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 || batch[0].Type != "run_paused" {
			break
		}
		ev, err := helikon.UnmarshalEvent(batch[0].Data)
		if err != nil {
			return nil, err
		}
		if p, ok := ev.(helikon.RunPaused); ok && p.State != nil && p.State.PauseID == info.PauseID {
			return p.State, nil
		}
		break
	}
	return nil, fmt.Errorf("run %s: event %d is not its pause %s", info.ID, info.LastEvent, info.PauseID)
}

// persisted records a resumed run's conversation in its session, as the
// runner does for a run: the recorder turns the events into session
// events, appended before the terminal event is passed on, so a failed
// append fails the run instead of going unreported.
func (s *Server) persisted(ctx context.Context, events iter.Seq[helikon.Event], sess helikon.Session, agent string) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		rec := helikon.NewSessionRecorder(nil)
		for ev := range events {
			rec.Observe(ev)
			switch ev.(type) {
			case helikon.RunCompleted, helikon.RunFailed, helikon.RunPaused:
				if batch := rec.Drain(); len(batch) > 0 {
					actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
					err := sess.Append(actx, batch...)
					cancel()
					if err != nil {
						ev = helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: agent,
							Message: "record the resumed run in its session: " + err.Error(), Err: err}}
					}
				}
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// cancelPaused ends a paused run as cancelled: it claims the pause, so a
// concurrent approval cannot continue it, and closes its stream.
func (s *Server) cancelPaused(ctx context.Context, info RunInfo) (RunInfo, error) {
	claimed, err := s.log.Claim(ctx, info.ID, info.PauseID)
	if err != nil {
		return RunInfo{}, err
	}
	w := runWriter{s: s, id: info.ID, ctx: context.WithoutCancel(ctx), seq: claimed.LastEvent}
	w.fail(claimed, &helikon.AgentError{Kind: helikon.KindCancelled, Agent: info.Agent, Message: "cancelled while paused for approval"})
	return s.log.Info(ctx, info.ID)
}
