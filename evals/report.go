package evals

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/paigasus/helikon"
)

// DefaultMaxReportBytes bounds a report read by [ReadReport].
const DefaultMaxReportBytes = 256 << 20

// Report is the result of a [Run]: every case in dataset order and a
// summary. It marshals to JSON and reads back with [ReadReport].
type Report struct {
	RunID      string        `json:"run_id"`
	Dataset    string        `json:"dataset"`
	StartedAt  time.Time     `json:"started_at"`
	Duration   time.Duration `json:"duration_ns"`
	Evaluators []string      `json:"evaluators"`
	Cases      []CaseResult  `json:"cases"`
	Summary    Summary       `json:"summary"`
}

// Summary aggregates a report.
type Summary struct {
	Cases  int `json:"cases"`
	Passed int `json:"passed"`
	// Failed counts the cases that did not pass, Errors among them.
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// MeanScore averages every score that is not a skip; Scored counts
	// them. Cases whose run failed have no scores: they fail the report
	// through Passed instead.
	MeanScore  float64            `json:"mean_score"`
	Scored     int                `json:"scored"`
	Evaluators []EvaluatorSummary `json:"evaluators"`
	// Usage sums every case's usage, evaluators included.
	Usage helikon.Usage `json:"usage"`
}

// EvaluatorSummary aggregates one evaluator's scores.
type EvaluatorSummary struct {
	Name    string `json:"name"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// Mean averages the scores that are not skips.
	Mean float64 `json:"mean"`
}

// Tally counts finished cases, as a [Progress] sees them.
type Tally struct {
	Done, Passed, Failed int
}

func (t *Tally) count(r *CaseResult) {
	t.Done++
	if r.Passed() {
		t.Passed++
	} else {
		t.Failed++
	}
}

// Summarize recomputes the summary from the cases.
func (r *Report) Summarize() {
	s := Summary{Cases: len(r.Cases)}
	index := make(map[string]int, len(r.Evaluators))
	for _, name := range r.Evaluators {
		index[name] = len(s.Evaluators)
		s.Evaluators = append(s.Evaluators, EvaluatorSummary{Name: name})
	}
	sums := make([]float64, len(s.Evaluators))
	var total float64
	for i := range r.Cases {
		c := &r.Cases[i]
		switch c.Status() {
		case StatusPassed:
			s.Passed++
		case StatusError:
			s.Errors++
			s.Failed++
		default:
			s.Failed++
		}
		s.Usage = s.Usage.Add(c.Usage)
		for _, sc := range c.Scores {
			j, ok := index[sc.Evaluator]
			if !ok {
				j = len(s.Evaluators)
				index[sc.Evaluator] = j
				s.Evaluators = append(s.Evaluators, EvaluatorSummary{Name: sc.Evaluator})
				sums = append(sums, 0)
			}
			e := &s.Evaluators[j]
			switch sc.Verdict {
			case Skipped:
				e.Skipped++
				continue
			case Passed:
				e.Passed++
			default:
				e.Failed++
			}
			sums[j] += sc.Value
			total += sc.Value
			s.Scored++
		}
	}
	for j := range s.Evaluators {
		if n := s.Evaluators[j].Passed + s.Evaluators[j].Failed; n > 0 {
			s.Evaluators[j].Mean = sums[j] / float64(n)
		}
	}
	if s.Scored > 0 {
		s.MeanScore = total / float64(s.Scored)
	}
	r.Summary = s
}

// Passed reports whether no case failed: no evaluator failed a case and
// every run completed.
func (r *Report) Passed() bool {
	for i := range r.Cases {
		if !r.Cases[i].Passed() {
			return false
		}
	}
	return true
}

// ErrCasesFailed reports a report with failing cases; see [Report.Check].
var ErrCasesFailed = errors.New("evals: cases failed")

// ErrBelowThreshold reports a mean score under the required one; see
// [Report.Check].
var ErrBelowThreshold = errors.New("evals: mean score below threshold")

// Check is the exit decision of a CI job: nil when every case passed and,
// when failUnder is positive, the mean score reaches it; otherwise an
// error wrapping [ErrCasesFailed] or [ErrBelowThreshold].
func (r *Report) Check(failUnder float64) error {
	var errs []error
	if !r.Passed() {
		errs = append(errs, fmt.Errorf("%w: %d of %d", ErrCasesFailed, r.Summary.Failed, r.Summary.Cases))
	}
	if failUnder > 0 && r.Summary.MeanScore < failUnder {
		errs = append(errs, fmt.Errorf("%w: %.3f < %.3f", ErrBelowThreshold, r.Summary.MeanScore, failUnder))
	}
	return errors.Join(errs...)
}

// ReadReport decodes a report written as JSON (by encoding/json or the
// CLI's --json), refusing one larger than [DefaultMaxReportBytes].
func ReadReport(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(rd, DefaultMaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("evals: read report: %w", err)
	}
	if len(data) > DefaultMaxReportBytes {
		return nil, fmt.Errorf("evals: read report: over the %d-byte limit", DefaultMaxReportBytes)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("evals: read report: %w", err)
	}
	return &rep, nil
}
