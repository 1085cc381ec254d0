package evals

import (
	"fmt"
	"io"
	"strings"
)

// Change says how a case moved between two reports.
type Change string

// The changes [Diff] reports.
const (
	Unchanged Change = "unchanged"
	Regressed Change = "regressed" // passed in the base, not in the head
	Improved  Change = "improved"  // did not pass in the base, passes in the head
	Added     Change = "added"     // only in the head
	Removed   Change = "removed"   // only in the base
)

// ScoreDelta is how one evaluator's score of a case moved. A side where
// the evaluator skipped or did not run has an empty verdict and value 0.
type ScoreDelta struct {
	Evaluator   string  `json:"evaluator"`
	Base        float64 `json:"base"`
	Head        float64 `json:"head"`
	Delta       float64 `json:"delta"`
	BaseVerdict Verdict `json:"base_verdict,omitempty"`
	HeadVerdict Verdict `json:"head_verdict,omitempty"`
}

// CaseDiff is one case of a [DiffReport], matched by case id.
type CaseDiff struct {
	ID     string       `json:"id"`
	Change Change       `json:"change"`
	Base   Status       `json:"base,omitempty"`
	Head   Status       `json:"head,omitempty"`
	Scores []ScoreDelta `json:"scores,omitempty"`
}

// Changed reports whether the case's status or any score moved.
func (d CaseDiff) Changed() bool {
	if d.Change != Unchanged {
		return true
	}
	for _, s := range d.Scores {
		if s.Delta != 0 || s.BaseVerdict != s.HeadVerdict {
			return true
		}
	}
	return false
}

// DiffReport compares two reports of the same dataset: what a pull request
// changed.
type DiffReport struct {
	Base string `json:"base_run_id"`
	Head string `json:"head_run_id"`
	// Cases lists the head's cases in its order, then the removed ones.
	Cases     []CaseDiff `json:"cases"`
	Regressed int        `json:"regressed"`
	Improved  int        `json:"improved"`
	Added     int        `json:"added"`
	Removed   int        `json:"removed"`
	// MeanDelta is the head's mean score minus the base's.
	MeanDelta float64 `json:"mean_delta"`
}

// Diff compares base with head case by case, matching cases by id.
func Diff(base, head *Report) *DiffReport {
	d := &DiffReport{Base: base.RunID, Head: head.RunID, MeanDelta: head.Summary.MeanScore - base.Summary.MeanScore}
	inBase := make(map[string]*CaseResult, len(base.Cases))
	for i := range base.Cases {
		inBase[base.Cases[i].Case.ID] = &base.Cases[i]
	}
	seen := make(map[string]bool, len(head.Cases))
	for i := range head.Cases {
		h := &head.Cases[i]
		seen[h.Case.ID] = true
		cd := CaseDiff{ID: h.Case.ID, Head: h.Status(), Change: Added}
		if b, ok := inBase[h.Case.ID]; ok {
			cd.Base = b.Status()
			cd.Scores = scoreDeltas(b, h)
			switch {
			case b.Passed() && !h.Passed():
				cd.Change = Regressed
			case !b.Passed() && h.Passed():
				cd.Change = Improved
			default:
				cd.Change = Unchanged
			}
		}
		d.add(cd)
	}
	for i := range base.Cases {
		if b := &base.Cases[i]; !seen[b.Case.ID] {
			d.add(CaseDiff{ID: b.Case.ID, Base: b.Status(), Change: Removed})
		}
	}
	return d
}

func (d *DiffReport) add(cd CaseDiff) {
	switch cd.Change {
	case Regressed:
		d.Regressed++
	case Improved:
		d.Improved++
	case Added:
		d.Added++
	case Removed:
		d.Removed++
	}
	d.Cases = append(d.Cases, cd)
}

func scoreDeltas(b, h *CaseResult) []ScoreDelta {
	var out []ScoreDelta
	index := make(map[string]int)
	side := func(s Score) (float64, Verdict) {
		if s.Verdict == Skipped {
			return 0, ""
		}
		return s.Value, s.Verdict
	}
	for _, s := range b.Scores {
		v, verdict := side(s)
		index[s.Evaluator] = len(out)
		out = append(out, ScoreDelta{Evaluator: s.Evaluator, Base: v, BaseVerdict: verdict})
	}
	for _, s := range h.Scores {
		v, verdict := side(s)
		j, ok := index[s.Evaluator]
		if !ok {
			j = len(out)
			out = append(out, ScoreDelta{Evaluator: s.Evaluator})
		}
		out[j].Head, out[j].HeadVerdict = v, verdict
	}
	for j := range out {
		out[j].Delta = out[j].Head - out[j].Base
	}
	return out
}

// Regressions returns the cases that passed in the base and not in the
// head.
func (d *DiffReport) Regressions() []CaseDiff {
	var out []CaseDiff
	for _, c := range d.Cases {
		if c.Change == Regressed {
			out = append(out, c)
		}
	}
	return out
}

// WriteMarkdown renders the cases that changed as a Markdown table, for a
// pull-request comment, after a one-line summary.
func (d *DiffReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**%d regressed, %d improved, %d added, %d removed; mean score %+.3f** (%s → %s)\n\n",
		d.Regressed, d.Improved, d.Added, d.Removed, d.MeanDelta, d.Base, d.Head)
	b.WriteString("| case | change | base | head | scores |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range d.Cases {
		if !c.Changed() {
			continue
		}
		var scores []string
		for _, s := range c.Scores {
			if s.Delta != 0 || s.BaseVerdict != s.HeadVerdict {
				scores = append(scores, fmt.Sprintf("%s %.2f → %.2f", s.Evaluator, s.Base, s.Head))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(c.ID), c.Change, orDash(string(c.Base)), orDash(string(c.Head)), cell(strings.Join(scores, "; ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cell escapes what would end a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
