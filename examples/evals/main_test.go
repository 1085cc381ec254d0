package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/paigasus/helikon/evals"
)

// durations are the only figures that vary between runs. The costs are
// the script's token counts at $0.25 and $2 per million: dining-march
// 280 in and 34 out, $0.000138.
var durations = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`)

func TestEvalExample_PrintsTheReportTable(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	var progress strings.Builder
	passed, err := run(context.Background(), &out, evals.NewProgress(&progress), ".", false, "")
	if err != nil || !passed {
		t.Fatalf("passed=%v err=%v\n%s", passed, err, out.String())
	}
	want := `#  CASE          STATUS  EXACT_MATCH  TOOL_TRAJECTORY  TOKENS  COST       TIME
1  dining-march  passed  1.00 ok      1.00 ok          314     $0.000138  D
2  compare       passed  1.00 ok      1.00 ok          388     $0.000190  D
3  as-json       passed  1.00 ok      1.00 ok          314     $0.000145  D
4  greeting      passed  skip         1.00 ok          98      $0.000039  D

4 cases: 4 passed, 0 failed (0 errors); mean score 1.000 over 7 scores
  exact_match: 3 passed, 0 failed, 1 skipped; mean 1.000
  tool_trajectory: 4 passed, 0 failed, 0 skipped; mean 1.000
tokens 1114 (in 981, out 133), cost $0.000511, time D
passed: true
`
	if got := durations.ReplaceAllString(out.String(), "D"); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	// Off a terminal, progress is one line per case, in completion order.
	if lines := strings.Split(strings.TrimSpace(progress.String()), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], "[4/4] ") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestEvalExample_JSONAndSQLiteTrace(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	db := filepath.Join(t.TempDir(), "evals.db")
	var out strings.Builder
	if _, err := run(context.Background(), &out, evals.NewProgress(io.Discard), ".", true, "sqlite:"+db); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		RunID string `json:"run_id"`
		Cases []struct {
			Output string `json:"output"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil || rep.RunID != "example" || len(rep.Cases) != 4 {
		t.Fatalf("json report: %v %+v", err, rep)
	}
	if rep.Cases[2].Output != `{"total": 412.50, "month": "2026-03", "category": "Dining"}` {
		t.Errorf("as-json output %q", rep.Cases[2].Output)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var calls int
	if err := conn.QueryRow(`SELECT count(*) FROM eval_events WHERE run_id = 'example' AND kind = 'tool_called'`).Scan(&calls); err != nil || calls != 4 {
		t.Errorf("tool calls in the trace: %d %v", calls, err)
	}
}
