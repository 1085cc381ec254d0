package server

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"

	"github.com/paigasus/helikon"
)

// ErrRunNotFound reports a run id the event log does not hold: it never
// existed, or retention pruned it.
var ErrRunNotFound = errors.New("server: run not found")

// ErrRunExists reports a second [EventLog.Create] for the same run id.
var ErrRunExists = errors.New("server: run already exists")

// ErrRunEnded reports a write to a run whose status is already final.
var ErrRunEnded = errors.New("server: run has ended")

// ErrNotPaused reports a claim on a run that is not paused at the given
// pause (it never paused there, or another claim took it first).
var ErrNotPaused = errors.New("server: run is not paused there")

// RunStatus is where a run stands.
type RunStatus string

// The run statuses. Queued, running and paused are the ones that are not
// final.
const (
	// StatusQueued is a run waiting for its session's turn: another run
	// of its session (X-Session-Id) holds the session on this server. It
	// becomes running once it takes the turn.
	StatusQueued  RunStatus = "queued"
	StatusRunning RunStatus = "running"
	// StatusPaused is a run waiting for human decisions on the calls its
	// Pending lists; approving them continues it under the same id.
	StatusPaused    RunStatus = "paused"
	StatusCompleted RunStatus = "completed"
	StatusFailed    RunStatus = "failed"
	StatusCancelled RunStatus = "cancelled"
	// StatusInterrupted is a run whose server stopped before it ended (a
	// crashed replica): the run is over, but nobody saw it finish.
	StatusInterrupted RunStatus = "interrupted"
)

// Final reports whether the status is an end state.
func (s RunStatus) Final() bool {
	return !s.Live() && s != StatusPaused && s != ""
}

// Live reports whether a run of the status is a server's to drive: queued
// for its session's turn, or running. A live run's log takes its records
// (a queued one only the run_failed of its cancel), and a log shared by
// replicas reads a live run whose replica died as interrupted.
func (s RunStatus) Live() bool { return s == StatusRunning || s == StatusQueued }

// RunInfo is a run's record: who ran it, where it stands and, once it has
// ended, its result or error.
type RunInfo struct {
	ID     string    `json:"id" jsonschema:"the run id (a UUID)"`
	Agent  string    `json:"agent" jsonschema:"the agent that runs"`
	Status RunStatus `json:"status" jsonschema:"queued (waiting for its session's turn), running, paused, completed, failed, cancelled or interrupted"`
	// Owner is the ID of the [Principal] that started the run (empty for
	// the anonymous principal of a server without an [Authenticator]):
	// only it, and admin principals, reach the run.
	Owner     string `json:"owner,omitempty" jsonschema:"the principal that started the run, the only one (with admins) that reaches it"`
	SessionID string `json:"session_id,omitempty" jsonschema:"the X-Session-Id the run was started with"`
	// Input is the text of the user message the run was started with (its
	// first 4 KiB), so a list of runs can say what each was asked.
	Input     string    `json:"input,omitempty" jsonschema:"the text of the user message that started the run (its first 4 KiB)"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when the run was started (RFC 3339)"`
	// FinishedAt is set once the status is final.
	FinishedAt *time.Time `json:"finished_at,omitempty" jsonschema:"when the run ended (RFC 3339)"`
	// Result is set once the run has ended, failed runs included: what it
	// said and spent before it stopped.
	Result *RunOutput `json:"result,omitempty" jsonschema:"the run's output, once it has ended"`
	// Error says why a run that did not complete stopped.
	Error *helikon.AgentError `json:"error,omitempty" jsonschema:"why the run did not complete"`
	// PauseID and Pending describe a paused run: the pause, and the calls
	// awaiting a decision.
	PauseID string                    `json:"pause_id,omitempty" jsonschema:"the current pause of a paused run"`
	Pending []helikon.PendingApproval `json:"pending,omitempty" jsonschema:"the calls a paused run waits on"`
	// PausedRunID is the core's id of a run that paused
	// ([helikon.RunState].RunID), under which the run's session records
	// its pause.
	PausedRunID string `json:"paused_run_id,omitempty" jsonschema:"the paused run's id in its session's records"`
	// LastEvent is the position of the run's last event when its status
	// last changed (it paused or ended).
	LastEvent int64 `json:"last_event,omitempty" jsonschema:"position of the run's last event when it paused or ended"`
	// ForkOf names the run and call a forked run started from.
	ForkOf *ForkOrigin `json:"fork_of,omitempty" jsonschema:"the run and model call this run was forked from"`
}

// RunOutput is what a run produced.
type RunOutput struct {
	FinalOutput string        `json:"final_output" jsonschema:"the text of the last assistant message"`
	LastAgent   string        `json:"last_agent,omitempty" jsonschema:"the agent that wrote it"`
	Usage       helikon.Usage `json:"usage" jsonschema:"tokens (and cost) the run spent"`
}

// Record is one event of a run as the log keeps it: its position (counted
// from 1), its type ("token_delta", "run_completed", …) and its JSON.
type Record struct {
	Seq  int64
	Type string
	Data json.RawMessage
}

// Terminal reports whether the record ends its run's stream. A pause does
// not: the stream goes on with the run's continuation.
func (r Record) Terminal() bool { return r.Type == "run_completed" || r.Type == "run_failed" }

// EventLog keeps every run's events and record so that any transport, on
// any replica sharing the log, can replay a run and follow it live.
//
// One writer at a time (the server driving the run) calls Create, then
// Append with positions 1, 2, 3, …, then Update when the run pauses or
// ends. A run of a session another run holds is created (or, continuing
// after a pause, claimed) [StatusQueued] and updated to running when it
// takes the session's turn, before it appends; log implementations treat
// a queued run as a running one ([RunStatus.Live]). A paused run
// continues on whichever server wins Claim, which appends on from the
// paused position. Readers call Info and Tail. A log
// shared by several servers must tell a run whose owner died from a live
// one: Info and Tail then report it [StatusInterrupted] (with a
// synthetic run_failed record), so no run stays running forever.
// Implementations must be safe for concurrent use.
type EventLog interface {
	// Create registers a new run. A second Create of the same id fails
	// with [ErrRunExists].
	Create(ctx context.Context, info RunInfo) error
	// Append stores the run's next record; rec.Seq is one more than the
	// previous record's. A run that is not running or queued refuses it
	// (a queued run appends only the run_failed of its cancellation).
	Append(ctx context.Context, runID string, rec Record) error
	// Update stores the run's record when its status changes: it waits
	// for its session's turn ([StatusQueued]) or takes it (queued to
	// running), it paused, or it ended (a final status, which also ends
	// the run's tails). A run that has already ended refuses it with
	// [ErrRunEnded].
	Update(ctx context.Context, info RunInfo) error
	// Claim moves a run paused at pauseID to status, for the caller to
	// continue: [StatusRunning], or [StatusQueued] when the continuation
	// waits for its session's turn (an Update to running follows). Of
	// concurrent claims exactly one succeeds, the others fail with
	// [ErrNotPaused]. It returns the run's record as claimed. A status that
	// is not live fails, and the run stays paused.
	Claim(ctx context.Context, runID, pauseID string, status RunStatus) (RunInfo, error)
	// Info returns the run's record, or an error wrapping
	// [ErrRunNotFound].
	Info(ctx context.Context, runID string) (RunInfo, error)
	// Tail yields the run's records after position after, in order and
	// in batches, waiting for new ones while the run is queued or running. It ends
	// after the run's last record once the run has finished, or with
	// ctx's error. An unknown run yields an error wrapping
	// [ErrRunNotFound].
	Tail(ctx context.Context, runID string, after int64) iter.Seq2[[]Record, error]
	// Prune removes finished runs that ended before cutoff, and the
	// oldest finished runs beyond the newest keep (keep <= 0: no count
	// bound). It returns how many it removed.
	Prune(ctx context.Context, cutoff time.Time, keep int) (int, error)
}
