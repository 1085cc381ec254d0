package evals_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/paigasus/helikon/evals"
)

func report(id string, cases ...evals.CaseResult) *evals.Report {
	r := &evals.Report{RunID: id, Evaluators: []string{"exact_match"}, Cases: cases}
	r.Summarize()
	return r
}

func result(id string, s ...evals.Score) evals.CaseResult {
	for i := range s {
		s[i].Evaluator = "exact_match"
	}
	return evals.CaseResult{Case: evals.Case{ID: id}, Scores: s}
}

func TestDiff_RegressionsImprovementsAndScoreDeltas(t *testing.T) {
	base := report("base",
		result("steady", evals.Pass(1, "")),
		result("breaks", evals.Pass(1, "")),
		result("heals", evals.Fail(0, "x")),
		result("drifts", evals.Fail(0.2, "x")),
		result("gone", evals.Pass(1, "")),
	)
	errored := result("heals")
	errored.Error = "boom"
	head := report("head",
		result("steady", evals.Pass(1, "")),
		result("breaks", evals.Fail(0, "wrong")),
		result("heals", evals.Pass(1, "")),
		result("drifts", evals.Fail(0.6, "x")),
		result("new|one", evals.Skip("no expected")),
	)
	d := evals.Diff(base, head)
	if d.Regressed != 1 || d.Improved != 1 || d.Added != 1 || d.Removed != 1 {
		t.Fatalf("counts %+v", d)
	}
	want := map[string]evals.Change{"steady": evals.Unchanged, "breaks": evals.Regressed, "heals": evals.Improved,
		"drifts": evals.Unchanged, "new|one": evals.Added, "gone": evals.Removed}
	for _, c := range d.Cases {
		if c.Change != want[c.ID] {
			t.Errorf("%s: %s, want %s", c.ID, c.Change, want[c.ID])
		}
	}
	if r := d.Regressions(); len(r) != 1 || r[0].ID != "breaks" || r[0].Base != evals.StatusPassed || r[0].Head != evals.StatusFailed {
		t.Errorf("regressions %+v", r)
	}
	drift := d.Cases[3]
	if drift.ID != "drifts" || !drift.Changed() || len(drift.Scores) != 1 || drift.Scores[0].Delta < 0.39 || drift.Scores[0].Delta > 0.41 {
		t.Errorf("score delta %+v", drift)
	}
	if d.Cases[0].Changed() {
		t.Errorf("steady case reported as changed: %+v", d.Cases[0])
	}
	var md bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, w := range []string{"**1 regressed, 1 improved, 1 added, 1 removed", "| breaks | regressed | passed | failed | exact_match 1.00 → 0.00 |", `| new\|one | added | - | passed |`, "| gone | removed | passed | - |"} {
		if !strings.Contains(out, w) {
			t.Errorf("markdown lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "| steady |") {
		t.Errorf("unchanged case listed:\n%s", out)
	}
	// A run error in the head is a regression like a failed evaluator.
	if d := evals.Diff(report("b", result("heals", evals.Pass(1, ""))), report("h", errored)); d.Regressed != 1 {
		t.Errorf("errored head: %+v", d)
	}
}
