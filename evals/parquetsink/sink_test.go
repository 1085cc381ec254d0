package parquetsink_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/evals/internal/evaltest"
	"github.com/paigasus/helikon/evals/parquetsink"
)

func TestSink_FilesReadBackWithTheLibrary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	sink, err := parquetsink.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := evaltest.Report(t, "run-7", evals.WithSinks(sink))
	events, err := parquet.ReadFile[parquetsink.EventRow](filepath.Join(dir, "run-7-events.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, c := range rep.Cases {
		want += len(c.Trace)
	}
	if len(events) != want || want == 0 {
		t.Fatalf("%d event rows, want %d", len(events), want)
	}
	first := events[0]
	if first.RunID != "run-7" || first.CaseID != "ok" || first.Kind != "user_message" || first.Text != "what is 40+2?" || first.Time == 0 {
		t.Errorf("first event row %+v", first)
	}
	var called *parquetsink.EventRow
	for i := range events {
		if events[i].Kind == "tool_called" {
			called = &events[i]
			break
		}
	}
	if called == nil || called.Name != "add" || called.Args != `{"a":40,"b":2}` || called.CallID != "call_1" {
		t.Errorf("tool call row %+v", called)
	}
	scores, err := parquet.ReadFile[parquetsink.ScoreRow](filepath.Join(dir, "run-7-scores.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// ok and wrong have two scores each; broken's failed run has one row.
	if len(scores) != 5 {
		t.Fatalf("%d score rows, want 5: %+v", len(scores), scores)
	}
	if s := scores[0]; s.CaseID != "ok" || s.Evaluator != "exact_match" || s.Verdict != "passed" || s.Value != 1 || s.Status != "passed" {
		t.Errorf("first score row %+v", s)
	}
	if s := scores[2]; s.CaseID != "wrong" || s.Verdict != "failed" || s.Reason == "" {
		t.Errorf("wrong's exact_match row %+v", s)
	}
	if s := scores[4]; s.CaseID != "broken" || s.Status != "error" || s.Evaluator != "" || s.Error == "" {
		t.Errorf("broken's row %+v", s)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestSink_RefusesRunIDsThatAreNotFileNames(t *testing.T) {
	sink, err := parquetsink.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "../escape", "a/b", ".hidden"} {
		if err := sink.Record(context.Background(), &evals.Report{RunID: id}); err == nil {
			t.Errorf("run id %q accepted", id)
		}
	}
	if _, err := parquetsink.New(""); err == nil {
		t.Error("empty directory accepted")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	blocked, _ := parquetsink.New(filepath.Join(file, "sub"))
	if err := blocked.Record(context.Background(), &evals.Report{RunID: "r"}); err == nil {
		t.Error("recording under a file succeeded")
	}
}
