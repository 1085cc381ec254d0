package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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

// notPaused is the 409 of a run that is not paused at pauseID (empty: at
// any pause).
func notPaused(info RunInfo, pauseID string) *Error {
	msg := "run " + info.ID + " is " + string(info.Status) + ", not paused"
	if info.Status == StatusPaused && pauseID != "" && pauseID != info.PauseID {
		msg = "run " + info.ID + " is paused at " + info.PauseID + ", not at " + pauseID
	}
	return errorf(http.StatusConflict, CodeNotPaused, "", msg)
}

// pauseTaken is the 409 of a decision that lost its pause to another
// decision or a cancel between reading the run and claiming the pause.
func pauseTaken(info RunInfo) *Error {
	return errorf(http.StatusConflict, CodeNotPaused, "",
		"run "+info.ID+" is no longer paused at "+info.PauseID+": another decision or a cancel took the pause first")
}

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	info, ok := s.runOf(w, r)
	if !ok {
		return
	}
	info = s.settledPause(r.Context(), info)
	if info.Status != StatusPaused {
		writeError(w, notPaused(info, ""))
		return
	}
	writeJSON(w, http.StatusOK, Approvals{RunID: info.ID, PauseID: info.PauseID, Pending: info.Pending})
}

// decide continues a paused run with the caller's decisions, under the
// same run id, on this server: it claims the pause in the log (so it
// resumes once, whichever replica is asked) and runs the rest in the
// background (202). A run on a kept session resumes from the pause its
// session records (the runner's ResumePausedStreamed); a run without one
// from the state in its run_paused event.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	info, ok := s.runOf(w, r)
	if !ok {
		return
	}
	info = s.settledPause(r.Context(), info)
	q, e := decodeBody[ApprovalRequest](w, r, s.limits)
	if e != nil {
		writeError(w, e)
		return
	}
	if info.Status != StatusPaused || (q.PauseID != "" && q.PauseID != info.PauseID) {
		writeError(w, notPaused(info, q.PauseID))
		return
	}
	if len(q.Decisions) == 0 {
		writeError(w, errorf(http.StatusBadRequest, CodeMissingField, "decisions", "give at least one decision"))
		return
	}
	// Decisions the core would fail the whole run for cost the caller a
	// 400 instead.
	if _, err := helikon.CheckDecisions(nil, info.Pending, q.Decisions); err != nil {
		writeError(w, errorf(http.StatusBadRequest, CodeBadRequest, "decisions", err.Error()))
		return
	}
	// A run on a kept session resumes from the pause its session
	// records, through the runner, which claims it there once and records
	// the continuation; a run without one, from the state in the log.
	var state *helikon.RunState
	if info.SessionID == "" {
		var err error
		if state, err = s.pausedState(r.Context(), info); err != nil {
			writeError(w, s.unavailable("read the paused state", err))
			return
		}
	}
	agent, e := s.agentFor(r, info.Agent)
	if e != nil {
		writeError(w, e)
		return
	}
	// The run continues on its owner's session, whoever decides (an
	// admin may).
	adm, rc, e := s.openRun(r, info.Owner, scopedSession(info.Owner, info.SessionID))
	if e != nil {
		writeError(w, e)
		return
	}
	defer adm.release()
	// While another run holds the session, the continuation waits for
	// its turn: it is claimed queued, and says so before the answer does.
	claimed, err := s.log.Claim(r.Context(), info.ID, info.PauseID, adm.status())
	switch {
	case errors.Is(err, ErrNotPaused):
		writeError(w, pauseTaken(info))
		return
	case err != nil:
		writeError(w, s.unavailable("claim the pause", err))
		return
	}
	lr, ctx, ok := s.begin(w, r, claimed, adm)
	if !ok {
		return
	}
	if s.calls.kept(claimed.ID) {
		rc = s.capture(claimed.ID, claimed.Owner, rc)
	}
	events := helikon.Resume(ctx, agent, rc, state, q.Decisions)
	if claimed.SessionID != "" {
		events = s.runner.ResumePausedStreamed(ctx, agent, rc, claimed.PausedRunID, q.Decisions)
	}
	go s.drive(ctx, lr, claimed, events, claimed.LastEvent, adm)
	writeAccepted(w, claimed.ID, claimed.Status, "../"+claimed.ID) // relative to .../runs/{id}/approvals
}

// settledPause returns the record of a run whose record still says
// running though it may have paused: a client that saw run_paused on the
// stream asks about the pause at once, and the run's record says paused
// only once its stream has ended, after its run_paused is in the log
// (which takes no event from a paused run). On the server driving the run
// it waits for that end, or for ctx; a run this server no longer drives
// may have stored its pause since info was read, so its record is read
// again. Any other record it returns as it is.
func (s *Server) settledPause(ctx context.Context, info RunInfo) RunInfo {
	if info.Status != StatusRunning {
		return info
	}
	s.mu.Lock()
	lr := s.live[info.ID]
	s.mu.Unlock()
	if lr != nil {
		if !lr.pausing.Load() {
			return info
		}
		select {
		case <-lr.done:
		case <-ctx.Done():
			return info
		}
	}
	if settled, err := s.log.Info(ctx, info.ID); err == nil {
		return settled
	}
	return info
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

// cancelPaused ends a paused run as cancelled: it claims the pause, so a
// concurrent approval cannot continue it, and closes its stream.
func (s *Server) cancelPaused(ctx context.Context, info RunInfo) (RunInfo, error) {
	claimed, err := s.log.Claim(ctx, info.ID, info.PauseID, StatusRunning)
	if err != nil {
		return RunInfo{}, err
	}
	w := runWriter{s: s, id: info.ID, owner: info.Owner, ctx: context.WithoutCancel(ctx), seq: claimed.LastEvent}
	w.fail(claimed, &helikon.AgentError{Kind: helikon.KindCancelled, Agent: info.Agent, Message: "cancelled while paused for approval"})
	return s.log.Info(ctx, info.ID)
}
