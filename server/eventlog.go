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

// RunStatus is where a run stands.
type RunStatus string

// The run statuses. Running is the only one that is not final.
const (
	StatusRunning   RunStatus = "running"
	StatusCompleted RunStatus = "completed"
	StatusFailed    RunStatus = "failed"
	StatusCancelled RunStatus = "cancelled"
	// StatusInterrupted is a run whose server stopped before it ended (a
	// crashed replica): the run is over, but nobody saw it finish.
	StatusInterrupted RunStatus = "interrupted"
)

// Final reports whether the status is an end state.
func (s RunStatus) Final() bool { return s != StatusRunning && s != "" }

// RunInfo is a run's record: who ran it, where it stands and, once it has
// ended, its result or error.
type RunInfo struct {
	ID        string    `json:"id" jsonschema:"the run id (a UUID)"`
	Agent     string    `json:"agent" jsonschema:"the agent that runs"`
	Status    RunStatus `json:"status" jsonschema:"running, completed, failed, cancelled or interrupted"`
	SessionID string    `json:"session_id,omitempty" jsonschema:"the X-Session-Id the run was started with"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when the run was started (RFC 3339)"`
	// FinishedAt is set once the status is final.
	FinishedAt *time.Time `json:"finished_at,omitempty" jsonschema:"when the run ended (RFC 3339)"`
	// Result is set once the run has ended, failed runs included: what it
	// said and spent before it stopped.
	Result *RunOutput `json:"result,omitempty" jsonschema:"the run's output, once it has ended"`
	// Error says why a run that did not complete stopped.
	Error *helikon.AgentError `json:"error,omitempty" jsonschema:"why the run did not complete"`
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

// Terminal reports whether the record ends its run's stream.
func (r Record) Terminal() bool { return r.Type == "run_completed" || r.Type == "run_failed" }

// EventLog keeps every run's events and record so that any transport, on
// any replica sharing the log, can replay a run and follow it live.
//
// One writer (the server driving the run) calls Create, then Append with
// positions 1, 2, 3, …, then Finish. Readers call Info and Tail. A log
// shared by several servers must tell a run whose owner died from a live
// one: Info and Tail then report it [StatusInterrupted] (with a
// synthetic run_failed record), so no run stays running forever.
// Implementations must be safe for concurrent use.
type EventLog interface {
	// Create registers a new run. A second Create of the same id fails
	// with [ErrRunExists].
	Create(ctx context.Context, info RunInfo) error
	// Append stores the run's next record; rec.Seq is one more than the
	// previous record's.
	Append(ctx context.Context, runID string, rec Record) error
	// Finish stores the run's final record; info.Status is final.
	Finish(ctx context.Context, info RunInfo) error
	// Info returns the run's record, or an error wrapping
	// [ErrRunNotFound].
	Info(ctx context.Context, runID string) (RunInfo, error)
	// Tail yields the run's records after position after, in order and
	// in batches, waiting for new ones while the run is running. It ends
	// after the run's last record once the run has finished, or with
	// ctx's error. An unknown run yields an error wrapping
	// [ErrRunNotFound].
	Tail(ctx context.Context, runID string, after int64) iter.Seq2[[]Record, error]
	// Prune removes finished runs that ended before cutoff, and the
	// oldest finished runs beyond the newest keep (keep <= 0: no count
	// bound). It returns how many it removed.
	Prune(ctx context.Context, cutoff time.Time, keep int) (int, error)
}
