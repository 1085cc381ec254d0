package evals

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable renders the report as a plain-text table for a terminal: one
// row per case with its status, each evaluator's score (a skip shows as
// "skip"), tokens, cost and time, then the summary.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"#", "CASE", "STATUS"}
	for _, name := range r.Evaluators {
		head = append(head, strings.ToUpper(name))
	}
	head = append(head, "TOKENS", "COST", "TIME")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i := range r.Cases {
		c := &r.Cases[i]
		row := []string{fmt.Sprint(c.Index + 1), c.Case.ID, string(c.Status())}
		for _, name := range r.Evaluators {
			row = append(row, scoreCell(c, name))
		}
		row = append(row, fmt.Sprint(c.Usage.Total()), cost(c.Usage.Cost), c.Duration.Round(time.Microsecond).String())
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := &r.Summary
	fmt.Fprintf(w, "\n%d cases: %d passed, %d failed (%d errors); mean score %.3f over %d scores\n",
		s.Cases, s.Passed, s.Failed, s.Errors, s.MeanScore, s.Scored)
	for _, e := range s.Evaluators {
		fmt.Fprintf(w, "  %s: %d passed, %d failed, %d skipped; mean %.3f\n", e.Name, e.Passed, e.Failed, e.Skipped, e.Mean)
	}
	fmt.Fprintf(w, "tokens %d (in %d, out %d), cost %s, time %v\n",
		s.Usage.Total(), s.Usage.InputTokens, s.Usage.OutputTokens, cost(s.Usage.Cost), r.Duration.Round(time.Millisecond))
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Passed() {
			continue
		}
		if c.Error != "" {
			fmt.Fprintf(w, "%s: error: %s\n", c.Case.ID, oneLine(c.Error))
			continue
		}
		for _, sc := range c.Scores {
			if sc.Verdict == Failed {
				fmt.Fprintf(w, "%s: %s: %s\n", c.Case.ID, sc.Evaluator, oneLine(sc.Reason))
			}
		}
	}
	return nil
}

// Table returns the report as [Report.WriteTable] renders it.
func (r *Report) Table() string {
	var b strings.Builder
	_ = r.WriteTable(&b) // a strings.Builder does not fail
	return b.String()
}

func scoreCell(c *CaseResult, name string) string {
	s, ok := c.Score(name)
	switch {
	case !ok:
		return "-"
	case s.Verdict == Skipped:
		return "skip"
	case s.Verdict == Passed:
		return fmt.Sprintf("%.2f ok", s.Value)
	default:
		return fmt.Sprintf("%.2f FAIL", s.Value)
	}
}

func cost(c float64) string {
	if c == 0 {
		return "-"
	}
	return fmt.Sprintf("$%.6f", c)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
