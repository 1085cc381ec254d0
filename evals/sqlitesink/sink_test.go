package sqlitesink_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/evals/internal/evaltest"
	"github.com/paigasus/helikon/evals/sqlitesink"
)

func TestSink_TablesReadBackWithPlainSQL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "evals.db")
	sink, err := sqlitesink.New(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := evaltest.Report(t, "run-1")
	if err := sink.Record(ctx, rep); err != nil {
		t.Fatal(err)
	}
	// A second run goes into the same tables; the first id again is refused.
	if err := sink.Record(ctx, evaltest.Report(t, "run-2")); err != nil {
		t.Fatal(err)
	}
	if err := sink.Record(ctx, rep); !errors.Is(err, sqlitesink.ErrRunRecorded) {
		t.Fatalf("re-recording: %v", err)
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cases, passed, failed, errs int
	var dataset string
	if err := db.QueryRow(`SELECT dataset, cases, passed, failed, errors FROM eval_runs WHERE run_id = 'run-1'`).
		Scan(&dataset, &cases, &passed, &failed, &errs); err != nil {
		t.Fatal(err)
	}
	if dataset != "calc.jsonl" || cases != 3 || passed != 1 || failed != 2 || errs != 1 {
		t.Errorf("eval_runs row: %s %d %d %d %d", dataset, cases, passed, failed, errs)
	}
	rows, err := db.Query(`SELECT case_id, status, output, coalesce(error, ''), scores FROM eval_cases WHERE run_id = 'run-1' ORDER BY case_index`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, status, output, errText, scores string
		if err := rows.Scan(&id, &status, &output, &errText, &scores); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+":"+status)
		if id == "broken" && (errText == "" || scores != "[]") {
			t.Errorf("broken case: error %q scores %s", errText, scores)
		}
		if id == "ok" && output != "sum is 42" {
			t.Errorf("ok case output %q", output)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := "[ok:passed wrong:failed broken:error]"; fmt.Sprint(got) != want {
		t.Errorf("cases %v, want %s in dataset order", got, want)
	}
	var kinds []string
	rows, err = db.Query(`SELECT e.kind, e.payload FROM eval_events e JOIN eval_cases c USING (run_id, case_index)
		WHERE e.run_id = 'run-1' AND c.case_id = 'ok' ORDER BY e.sequence`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind, payload string
		if err := rows.Scan(&kind, &payload); err != nil {
			t.Fatal(err)
		}
		var ev helikon.SessionEvent
		if err := json.Unmarshal([]byte(payload), &ev); err != nil || string(ev.Kind) != kind {
			t.Fatalf("payload %s is not a SessionEvent of kind %s: %v", payload, kind, err)
		}
		kinds = append(kinds, kind)
	}
	if want := "[user_message tool_called tool_returned assistant_message]"; fmt.Sprint(kinds) != want {
		t.Errorf("events %v, want %s", kinds, want)
	}
	var total int
	if err := db.QueryRow(`SELECT count(*) FROM eval_events`).Scan(&total); err != nil || total == 0 {
		t.Errorf("events over both runs: %d %v", total, err)
	}
}

func TestNew_RejectsAnEmptyPathAndReportsAnUnwritableOne(t *testing.T) {
	if _, err := sqlitesink.New(""); err == nil {
		t.Error("empty path accepted")
	}
	sink, err := sqlitesink.New(filepath.Join(t.TempDir(), "no", "such", "dir", "evals.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Record(context.Background(), evaltest.Report(t, "r")); err == nil {
		t.Error("recording into a missing directory succeeded")
	}
	if err := sink.Record(context.Background(), &evals.Report{}); err == nil {
		t.Error("a report without a run id was recorded")
	}
}
