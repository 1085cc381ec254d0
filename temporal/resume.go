package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// Resume continues a durable run that paused for approval: state is the
// [helikon.RunState] of its RunPaused event, decisions answer its pending
// approvals (see [helikon.Decision]). It is the durable counterpart of
// [helikon.Resume], which cannot resume a durable state: the workflow, not
// the state, holds the paused round. The decisions reach the waiting
// workflow as an update, which the workflow checks as [helikon.Resume]
// does: a decision for an unknown approval, a malformed one or one for a
// pause that is over fails the stream without changing the run. The stream
// then carries the events after the pause; a call left undecided pauses
// the run again. rc supplies the session the resumed part is recorded in.
func (r *Runner) Resume(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, state *helikon.RunState, decisions []helikon.Decision) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if state == nil || state.RunID == "" || state.PauseID == "" {
			yield(resumeFailure(agent, helikon.ErrNotResumable))
			return
		}
		r.decide(ctx, agent, rc, state.RunID, state.PauseID, decisions, true, yield)
	}
}

// ResumePaused continues the paused run runID with decisions; see
// [Runner.ResumePausedStreamed].
// Like [Runner.Run], it learns of the run's next pause or end from the
// wait update instead of polling.
func (r *Runner) ResumePaused(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID string, decisions []helikon.Decision) (*helikon.RunResult, error) {
	return helikon.Collect(r.resumePaused(ctx, agent, rc, runID, decisions, false))
}

// ResumePausedStreamed continues a durable run that paused for approval,
// by its run id (the RunState's RunID, the workflow id), as
// [runner.Runner.ResumePausedStreamed] does for an in-process run: any
// process with a client resumes it, with no state at hand. It asks the
// workflow for the pause it waits on, then sends the decisions as
// [Runner.Resume] does. A run id no workflow has, or a run that never
// paused, fails with [runner.ErrUnknownRun]; a run whose pause was already
// decided (by this process or another) fails with
// [runner.ErrAlreadyResumed]. The workflow admits one decision per pause,
// so of two processes resuming it, one fails before anything runs.
func (r *Runner) ResumePausedStreamed(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID string, decisions []helikon.Decision) iter.Seq[helikon.Event] {
	return r.resumePaused(ctx, agent, rc, runID, decisions, true)
}

// resumePaused resumes run runID; live streams its events as they come.
func (r *Runner) resumePaused(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID string, decisions []helikon.Decision, live bool) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		var p pauseInfo
		err := query(ctx, r.c, runID, "", &p, PauseQuery)
		var notFound *serviceerror.NotFound
		switch {
		case errors.As(err, &notFound):
			yield(resumeFailure(agent, fmt.Errorf("%w: %q", runner.ErrUnknownRun, runID)))
			return
		case err != nil:
			yield(resumeFailure(agent, fmt.Errorf("temporal: read the run's pause: %w", err)))
			return
		case p.PauseID == "" && p.Pauses == 0:
			yield(resumeFailure(agent, fmt.Errorf("%w: run %q never paused", runner.ErrUnknownRun, runID)))
			return
		case p.PauseID == "":
			yield(resumeFailure(agent, fmt.Errorf("%w: run %q", runner.ErrAlreadyResumed, runID)))
			return
		}
		r.decide(ctx, agent, rc, runID, p.PauseID, decisions, live, yield)
	}
}

// decide sends decisions for pause pauseID to run runID and follows the
// run from there: live, streaming its events; otherwise until the wait
// update tells of its next pause or its end.
func (r *Runner) decide(ctx context.Context, agent helikon.Agent, rc *helikon.RunContext, runID, pauseID string, decisions []helikon.Decision, live bool, yield func(helikon.Event) bool) {
	name := ""
	if agent != nil {
		name = agent.Name()
	}
	if rc == nil {
		rc = helikon.Ephemeral()
	}
	h, err := r.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   runID,
		UpdateName:   DecideUpdate,
		Args:         []any{decideIn{PauseID: pauseID, Decisions: decisions}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var offset int
	if err == nil {
		err = h.Get(ctx, &offset)
	}
	if err != nil {
		yield(resumeFailure(agent, fmt.Errorf("temporal: decide: %w", err)))
		return
	}
	wr := r.c.GetWorkflow(ctx, runID, "")
	var wait waitFunc
	if !live {
		wait = sendWait(r.c, wr, pauseID)
	}
	r.follow(ctx, rc, name, wr, wait, offset, &runner.SessionRecorder{}, live, yield)
}

// resumeFailure is the RunFailed of a resume that did not reach the run.
func resumeFailure(agent helikon.Agent, err error) helikon.Event {
	name := ""
	if agent != nil {
		name = agent.Name()
	}
	return helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindConfig, Agent: name, Message: err.Error(), Err: err}}
}
