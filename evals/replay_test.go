package evals_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// TestRecorder_ALiveRunReplaysIdentically records a run whose model stands
// in for a live provider, writes the script file, and replays the dataset
// from it: same outputs, same tool calls, same usage, same verdicts.
func TestRecorder_ALiveRunReplaysIdentically(t *testing.T) {
	ds := dataset(t,
		`{"id":"sum","input":"what is 40+2?","expected":"sum is 42","expected_tools":["add"]}`,
		`{"id":"flaky","input":"what is 1+1?"}`,
		`{"id":"chat","input":"hello","expected":"hi there"}`)
	live := map[string][]mock.Script{
		"sum":   s1("sum is 42"),
		"flaky": {mock.Fail(&helikon.ModelError{Kind: helikon.ModelRateLimited, Provider: "openai", Message: "slow down", RetryAfter: 20 * time.Millisecond})},
		"chat": {mock.Events(helikon.ReasoningDelta{Text: "greet"}, helikon.TokenDelta{Text: "hi "}, helikon.TokenDelta{Text: "there"},
			helikon.Usage{InputTokens: 7, OutputTokens: 2}, helikon.ResponseInfo{ID: "resp_1", Model: "gpt-x"}, helikon.Finish{Reason: helikon.FinishStop})},
	}
	rec := evals.NewRecorder()
	build := func(c *evals.Case, m helikon.Model) (helikon.Agent, error) {
		return helikon.NewAgent("calc", m, helikon.WithTools(addTool))
	}
	evaluators := evals.WithEvaluators(evals.NewExactMatch(), mustTrajectory(t, evals.TrajectoryExact))
	run := func(f evals.AgentFactory) *evals.Report {
		t.Helper()
		r, err := evals.NewRun(ds, evals.WithAgentFactory(f), evaluators, evals.WithConcurrency(3))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.Execute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first := run(func(c *evals.Case) (helikon.Agent, error) {
		return build(c, rec.Model(c.ID, mock.New(live[c.ID], mock.WithModelID("gpt-x"))))
	})
	path := filepath.Join(t.TempDir(), "recorded.json")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"retry_after_ms": 20`) || strings.Index(string(data), `"chat"`) > strings.Index(string(data), `"sum"`) {
		t.Errorf("script file:\n%s", data)
	}
	sf, err := mock.LoadScriptFile(path)
	if err != nil {
		t.Fatal(err)
	}
	replayed := run(evals.ReplayFactory(sf, build))
	for i := range first.Cases {
		a, b := first.Cases[i], replayed.Cases[i]
		// A replayed model error names the mock as its provider.
		if a.Output != b.Output || strings.Replace(a.Error, "openai:", "mock:", 1) != b.Error || a.Usage != b.Usage || !reflect.DeepEqual(a.ToolCalls, b.ToolCalls) || a.Status() != b.Status() {
			t.Errorf("case %s: live %+v\nreplay %+v", a.Case.ID, a, b)
		}
	}
	if first.Cases[0].Status() != evals.StatusPassed || first.Cases[1].Status() != evals.StatusError || first.Cases[2].Status() != evals.StatusPassed {
		t.Errorf("live statuses: %s %s %s", first.Cases[0].Status(), first.Cases[1].Status(), first.Cases[2].Status())
	}
	if !strings.Contains(replayed.Cases[1].Error, "slow down") {
		t.Errorf("replayed error %q", replayed.Cases[1].Error)
	}
}

// TestRecordingFactory_CasesReplayTheirRecordingAndReportDrift records a
// dataset, names the file in each case, and replays it strictly: the same
// verdicts with the tool not run, then a drift when the instructions
// change, named in the case's error.
func TestRecordingFactory_CasesReplayTheirRecordingAndReportDrift(t *testing.T) {
	dir := t.TempDir()
	lines := `{"id":"sum","input":"what is 40+2?","expected":"sum is 42","expected_tools":["add"],"recording":"calc.json"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "cases.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := evals.LoadDataset(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if ds.Cases[0].Recording != filepath.Join(dir, "calc.json") {
		t.Fatalf("recording path %q", ds.Cases[0].Recording)
	}
	rec := evals.NewRecorder()
	ran := 0
	counting := helikon.MustTool("add", "Add two integers.", func(tc *helikon.ToolContext, in addArgs) (addOut, error) {
		ran++
		return addOut{Sum: in.A + in.B}, nil
	})
	exec := func(f evals.AgentFactory) *evals.Report {
		t.Helper()
		r, err := evals.NewRun(ds, evals.WithAgentFactory(f), evals.WithEvaluators(evals.NewExactMatch()))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.Execute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	live := exec(func(c *evals.Case) (helikon.Agent, error) {
		return helikon.NewAgent("calc", rec.Model(c.ID, mock.New(s1("sum is 42"))), helikon.WithInstructions("Add."), helikon.WithTools(rec.Tool(c.ID, counting)))
	})
	if err := rec.WriteFile(ds.Cases[0].Recording); err != nil {
		t.Fatal(err)
	}
	replay := func(instructions string) *evals.Report {
		return exec(evals.RecordingFactory(func(c *evals.Case, rp *record.Replay) (helikon.Agent, error) {
			return helikon.NewAgent("calc", rp.Model(), helikon.WithInstructions(instructions), helikon.WithTools(rp.Tool(counting)))
		}))
	}
	same := replay("Add.")
	if ran != 1 || live.Cases[0].Status() != evals.StatusPassed || same.Cases[0].Status() != evals.StatusPassed || same.Cases[0].Output != "sum is 42" {
		t.Fatalf("tool ran %d times; live %+v, replay %+v", ran, live.Cases[0], same.Cases[0])
	}
	drifted := replay("Add, then double.")
	if drifted.Cases[0].Status() != evals.StatusError || !strings.Contains(drifted.Cases[0].Error, "instructions") {
		t.Errorf("drifted case: %s %q", drifted.Cases[0].Status(), drifted.Cases[0].Error)
	}
}
