// Package parquetsink records eval runs as Parquet files for offline
// analysis with any Parquet reader (DuckDB, pandas, Spark): per run,
// <dir>/<run_id>-events.parquet (one row per session event of every case,
// in the canonical [helikon.SessionEvent] form) and
// <dir>/<run_id>-scores.parquet (one row per case and evaluator), both with
// flat columns. It is a package of its own so that only programs that use
// it link the Parquet library.
//
//	sink, err := parquetsink.New("eval-out")
//	run, err := evals.NewRun(ds, evals.WithAgentFactory(f), evals.WithSinks(sink))
package parquetsink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
)

// EventRow is one row of the events file: one session event of one case.
type EventRow struct {
	RunID     string `parquet:"run_id"`
	CaseIndex int32  `parquet:"case_index"`
	CaseID    string `parquet:"case_id"`
	Sequence  int32  `parquet:"sequence"`
	// Kind is the event's type: user_message, assistant_message,
	// tool_called, tool_returned, handoff_occurred.
	Kind string `parquet:"kind"`
	// Time is Unix nanoseconds.
	Time    int64  `parquet:"ts,timestamp(nanosecond)"`
	Agent   string `parquet:"agent"`
	CallID  string `parquet:"call_id"`
	Name    string `parquet:"name"`
	Args    string `parquet:"args"`
	IsError bool   `parquet:"is_error"`
	// Text joins the text parts of the event's content.
	Text string `parquet:"text"`
	From string `parquet:"from"`
	To   string `parquet:"to"`
	// Payload is the whole event as JSON, nothing lost to the flat columns.
	Payload string `parquet:"payload"`
}

// ScoreRow is one row of the scores file: one evaluator's score of one
// case. A case whose run failed has one row with an empty Evaluator.
type ScoreRow struct {
	RunID     string `parquet:"run_id"`
	CaseIndex int32  `parquet:"case_index"`
	CaseID    string `parquet:"case_id"`
	// Status is the case's: passed, failed or error.
	Status       string  `parquet:"status"`
	Error        string  `parquet:"error"`
	Evaluator    string  `parquet:"evaluator"`
	Verdict      string  `parquet:"verdict"`
	Value        float64 `parquet:"value"`
	Reason       string  `parquet:"reason"`
	InputTokens  int64   `parquet:"input_tokens"`
	OutputTokens int64   `parquet:"output_tokens"`
	Cost         float64 `parquet:"cost"`
	DurationNS   int64   `parquet:"duration_ns"`
}

// Sink writes each report as two Parquet files in its directory.
type Sink struct {
	dir string
}

var _ evals.Sink = (*Sink)(nil)

// New returns a sink writing into dir, created on first use.
func New(dir string) (*Sink, error) {
	if dir == "" {
		return nil, errors.New("parquetsink: directory is required")
	}
	return &Sink{dir: dir}, nil
}

// Paths returns the events and scores files a run id is written to.
func (s *Sink) Paths(runID string) (events, scores string) {
	return filepath.Join(s.dir, runID+"-events.parquet"), filepath.Join(s.dir, runID+"-scores.parquet")
}

// Record writes the report's two files. Each appears whole or not at all:
// it is written beside its final name and renamed into place.
func (s *Sink) Record(_ context.Context, rep *evals.Report) error {
	if rep.RunID == "" || rep.RunID != filepath.Base(rep.RunID) || strings.HasPrefix(rep.RunID, ".") {
		return fmt.Errorf("parquetsink: run id %q cannot name a file", rep.RunID)
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("parquetsink: %w", err)
	}
	events, scores := s.Paths(rep.RunID)
	evRows, err := eventRows(rep)
	if err != nil {
		return err
	}
	if err := writeFile(events, evRows); err != nil {
		return err
	}
	return writeFile(scores, scoreRows(rep))
}

func eventRows(rep *evals.Report) ([]EventRow, error) {
	var rows []EventRow
	for i := range rep.Cases {
		c := &rep.Cases[i]
		for seq, ev := range c.Trace {
			payload, err := json.Marshal(ev)
			if err != nil {
				return nil, fmt.Errorf("parquetsink: case %s event %d: %w", c.Case.ID, seq, err)
			}
			rows = append(rows, EventRow{
				RunID: rep.RunID, CaseIndex: int32(c.Index), CaseID: c.Case.ID, Sequence: int32(seq),
				Kind: string(ev.Kind), Time: ev.Time.UnixNano(), Agent: ev.Agent, CallID: ev.CallID,
				Name: ev.Name, Args: string(ev.Args), IsError: ev.IsError, Text: helikon.Item{Content: ev.Content}.Text(),
				From: ev.From, To: ev.To, Payload: string(payload),
			})
		}
	}
	return rows, nil
}

func scoreRows(rep *evals.Report) []ScoreRow {
	var rows []ScoreRow
	for i := range rep.Cases {
		c := &rep.Cases[i]
		base := ScoreRow{
			RunID: rep.RunID, CaseIndex: int32(c.Index), CaseID: c.Case.ID, Status: string(c.Status()),
			Error: c.Error, InputTokens: c.Usage.InputTokens, OutputTokens: c.Usage.OutputTokens,
			Cost: c.Usage.Cost, DurationNS: int64(c.Duration),
		}
		if len(c.Scores) == 0 {
			rows = append(rows, base)
			continue
		}
		for _, s := range c.Scores {
			r := base
			r.Evaluator, r.Verdict, r.Value, r.Reason = s.Evaluator, string(s.Verdict), s.Value, s.Reason
			rows = append(rows, r)
		}
	}
	return rows
}

func writeFile[T any](path string, rows []T) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("parquetsink: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	w := parquet.NewGenericWriter[T](tmp)
	if _, err := w.Write(rows); err != nil {
		tmp.Close()
		return fmt.Errorf("parquetsink: write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("parquetsink: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("parquetsink: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("parquetsink: %w", err)
	}
	return nil
}
