package evals

import (
	"time"

	"github.com/paigasus/helikon"
)

// CaseResult is one case of a [Report]: the case, what its run produced,
// the evaluators' scores and what it cost.
type CaseResult struct {
	// Index is the case's position in the dataset.
	Index int  `json:"index"`
	Case  Case `json:"case"`
	// Output is the run's final output.
	Output    string     `json:"output"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Error is set when the case could not run to completion: the agent
	// could not be built, or the run failed or timed out. Evaluators do not
	// run then.
	Error  string  `json:"error,omitempty"`
	Scores []Score `json:"scores,omitempty"`
	// Usage sums the run's usage and the evaluators' (an LLM judge's).
	Usage     helikon.Usage `json:"usage"`
	StartedAt time.Time     `json:"started_at"`
	// Duration is the case's wall time, evaluators included.
	Duration time.Duration `json:"duration_ns"`
	// Trace is the run in the canonical [helikon.SessionEvent] form the
	// session backends store, as [runner.SessionRecorder] records it.
	Trace []helikon.SessionEvent `json:"trace,omitempty"`
}

// Status is a case's outcome in one word.
type Status string

// The case statuses.
const (
	StatusPassed Status = "passed"
	StatusFailed Status = "failed"
	// StatusError is a case whose run did not complete.
	StatusError Status = "error"
)

// Status returns StatusError when the run did not complete, StatusFailed
// when an evaluator failed the case, and StatusPassed otherwise (every
// evaluator passed or skipped).
func (r CaseResult) Status() Status {
	if r.Error != "" {
		return StatusError
	}
	for _, s := range r.Scores {
		if s.Verdict == Failed {
			return StatusFailed
		}
	}
	return StatusPassed
}

// Passed reports whether the case passed.
func (r CaseResult) Passed() bool { return r.Status() == StatusPassed }

// Score returns the case's score from the evaluator named name.
func (r CaseResult) Score(name string) (Score, bool) {
	for _, s := range r.Scores {
		if s.Evaluator == name {
			return s, true
		}
	}
	return Score{}, false
}
