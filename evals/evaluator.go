package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/paigasus/helikon"
)

// Verdict is what an evaluator concluded about one case.
type Verdict string

// The verdicts. A skip is not a failure: it counts toward neither side nor
// the mean, and reports show how many there were, so that a dataset with
// nothing for an evaluator to check shows up instead of passing silently.
const (
	Passed  Verdict = "passed"
	Failed  Verdict = "failed"
	Skipped Verdict = "skipped"
)

// Score is one evaluator's result for one case.
type Score struct {
	// Evaluator is the evaluator's Name.
	Evaluator string `json:"evaluator"`
	// Value is in [0, 1]; it is 0 for a skip.
	Value   float64 `json:"value"`
	Verdict Verdict `json:"verdict"`
	// Reason says why, in a line: a mismatch, a schema error, a judge's
	// reasoning.
	Reason string `json:"reason,omitempty"`
	// Usage is what the evaluator itself spent (an LLM judge's model).
	Usage helikon.Usage `json:"usage,omitzero"`
}

// Pass returns a passing score of value v.
func Pass(v float64, reason string) Score { return Score{Value: v, Verdict: Passed, Reason: reason} }

// Fail returns a failing score of value v.
func Fail(v float64, reason string) Score { return Score{Value: v, Verdict: Failed, Reason: reason} }

// Skip returns a skip, with why.
func Skip(reason string) Score { return Score{Verdict: Skipped, Reason: reason} }

// ToolCall is one tool call a run made.
type ToolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Outcome is what a case's run produced, as evaluators see it.
type Outcome struct {
	// FinalOutput is the text of the run's last assistant message.
	FinalOutput string
	// ToolCalls lists the run's tool calls in the order they were made.
	ToolCalls []ToolCall
	// Events is the run's full event stream.
	Events []helikon.Event
	// Usage is the run's summed usage.
	Usage    helikon.Usage
	Duration time.Duration
}

// Evaluator scores a case's outcome. Evaluators only see runs that
// completed: a run that failed fails its case before any evaluator runs.
// An Evaluator must be safe for concurrent use; an error means the case
// could not be evaluated (a judge model that is down) and fails the case.
type Evaluator interface {
	Name() string
	Evaluate(ctx context.Context, c *Case, out *Outcome) (Score, error)
}

// evaluate runs e, holding its score to the contract: a value in [0, 1], a
// known verdict, and a panic turned into an error.
func evaluate(ctx context.Context, e Evaluator, c *Case, out *Outcome) (s Score, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluator panicked: %v", p)
		}
	}()
	s, err = e.Evaluate(ctx, c, out)
	if err != nil {
		return s, err
	}
	switch {
	case s.Verdict != Passed && s.Verdict != Failed && s.Verdict != Skipped:
		return s, fmt.Errorf("unknown verdict %q", s.Verdict)
	case math.IsNaN(s.Value) || s.Value < 0 || s.Value > 1:
		return s, fmt.Errorf("score %v outside [0, 1]", s.Value)
	}
	return s, nil
}
