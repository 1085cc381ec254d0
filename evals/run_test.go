package evals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

func TestRun_ResultsKeepDatasetOrderUnderConcurrency(t *testing.T) {
	var lines []string
	for i := range 24 {
		lines = append(lines, fmt.Sprintf(`{"id":"c%02d","input":"case %d","expected":"answer %d","expected_tools":["add"]}`, i, i, i))
	}
	ds := dataset(t, lines...)
	run, err := evals.NewRun(ds,
		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
			var n int
			fmt.Sscanf(c.Input, "case %d", &n)
			// Early cases are the slowest, so they finish last.
			return helikon.NewAgent("calc", mock.New(s1(fmt.Sprintf("answer %d", n)),
				mock.WithDelay(time.Duration(24-n)*100*time.Microsecond)), helikon.WithTools(addTool))
		}),
		evals.WithEvaluators(evals.NewExactMatch(), mustTrajectory(t, evals.TrajectoryExact)),
		evals.WithConcurrency(6))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range rep.Cases {
		if c.Index != i || c.Case.ID != ds.Cases[i].ID || c.Output != fmt.Sprintf("answer %d", i) || !c.Passed() {
			t.Fatalf("case %d = %+v", i, c)
		}
	}
	if !rep.Passed() || rep.Summary.Passed != 24 || rep.Summary.MeanScore != 1 || rep.Summary.Scored != 48 {
		t.Fatalf("summary %+v", rep.Summary)
	}
}

func mustTrajectory(t testing.TB, m evals.TrajectoryMode) *evals.ToolTrajectory {
	tt, err := evals.NewToolTrajectory(m)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// flaky is an evaluator whose behaviour the case's metadata chooses.
type flaky struct{}

func (flaky) Name() string { return "flaky" }
func (flaky) Evaluate(_ context.Context, c *evals.Case, _ *evals.Outcome) (evals.Score, error) {
	switch c.Metadata["eval"] {
	case "error":
		return evals.Score{}, errors.New("judge unreachable")
	case "panic":
		panic("boom")
	case "range":
		return evals.Pass(1.5, ""), nil
	}
	return evals.Pass(1, ""), nil
}

func TestRun_SkipsFailuresErrorsAndTimeouts(t *testing.T) {
	ds := dataset(t,
		`{"id":"pass","input":"a","expected":"sum is 42","expected_tools":["add"]}`,
		`{"id":"skip","input":"a"}`,
		`{"id":"wrong","input":"a","expected":"sum is 41"}`,
		`{"id":"run-fails","input":"a","expected":"sum is 42","metadata":{"model":"fail"}}`,
		`{"id":"slow","input":"a","expected":"sum is 42","metadata":{"model":"slow"}}`,
		`{"id":"no-agent","input":"a","metadata":{"model":"none"}}`,
		`{"id":"factory-panics","input":"a","metadata":{"model":"panic"}}`,
		`{"id":"evaluator-errs","input":"a","metadata":{"eval":"error"}}`,
		`{"id":"evaluator-panics","input":"a","metadata":{"eval":"panic"}}`,
		`{"id":"out-of-range","input":"a","metadata":{"eval":"range"}}`,
	)
	run, err := evals.NewRun(ds,
		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
			var opts []mock.Option
			scripts := s1("sum is 42")
			switch c.Metadata["model"] {
			case "fail":
				scripts = []mock.Script{mock.Fail(&helikon.ModelError{Kind: helikon.ModelRefused, Provider: "mock", Message: "bad key"})}
			case "slow":
				opts = append(opts, mock.WithDelay(time.Hour))
			case "none":
				return nil, errors.New("no such agent")
			case "panic":
				panic("factory bug")
			}
			return helikon.NewAgent("calc", mock.New(scripts, opts...), helikon.WithTools(addTool))
		}),
		evals.WithEvaluators(evals.NewExactMatch(), mustTrajectory(t, evals.TrajectoryInOrder), flaky{}),
		evals.WithCaseTimeout(50*time.Millisecond),
		evals.WithConcurrency(3))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]evals.Status{
		"pass": evals.StatusPassed, "skip": evals.StatusPassed, "wrong": evals.StatusFailed,
		"run-fails": evals.StatusError, "slow": evals.StatusError, "no-agent": evals.StatusError,
		"factory-panics": evals.StatusError, "evaluator-errs": evals.StatusFailed,
		"evaluator-panics": evals.StatusFailed, "out-of-range": evals.StatusFailed,
	}
	for _, c := range rep.Cases {
		if got := c.Status(); got != want[c.Case.ID] {
			t.Errorf("%s: status %s, want %s (error %q, scores %+v)", c.Case.ID, got, want[c.Case.ID], c.Error, c.Scores)
		}
	}
	byID := func(id string) evals.CaseResult {
		for _, c := range rep.Cases {
			if c.Case.ID == id {
				return c
			}
		}
		t.Fatalf("no case %s", id)
		return evals.CaseResult{}
	}
	if c := byID("run-fails"); !strings.Contains(c.Error, "bad key") || len(c.Scores) != 0 {
		t.Errorf("a failed run is an error and runs no evaluator: %+v", c)
	}
	if c := byID("slow"); !strings.Contains(c.Error, "deadline") {
		t.Errorf("timeout: %q", c.Error)
	}
	if c := byID("factory-panics"); !strings.Contains(c.Error, "factory bug") {
		t.Errorf("factory panic: %q", c.Error)
	}
	if s, _ := byID("evaluator-panics").Score("flaky"); !strings.Contains(s.Reason, "boom") {
		t.Errorf("evaluator panic: %+v", s)
	}
	if s, _ := byID("out-of-range").Score("flaky"); !strings.Contains(s.Reason, "outside [0, 1]") {
		t.Errorf("out-of-range score: %+v", s)
	}
	sum := rep.Summary
	if rep.Passed() || sum.Passed != 2 || sum.Failed != 8 || sum.Errors != 4 {
		t.Errorf("summary %+v", sum)
	}
	em := sum.Evaluators[0]
	// exact_match: pass passed, wrong failed; skip and the three
	// evaluator cases skipped (no expected); the four errors ran nothing.
	if em.Name != "exact_match" || em.Passed != 1 || em.Failed != 1 || em.Skipped != 4 || em.Mean != 0.5 {
		t.Errorf("exact_match summary %+v", em)
	}
	if err := rep.Check(0); !errors.Is(err, evals.ErrCasesFailed) {
		t.Errorf("Check = %v", err)
	}
}

func TestRun_SharedAgentAndContextFactory(t *testing.T) {
	ds := dataset(t, `{"input":"a","expected":"hi"}`, `{"input":"b","expected":"hi"}`)
	model := mock.Scripted(mock.Text("hi"), mock.Text("hi"))
	agent, err := helikon.NewAgent("greeter", model)
	if err != nil {
		t.Fatal(err)
	}
	prices := helikon.Prices{"mock": {Input: 1, Output: 2}}
	var contexts int
	run, err := evals.NewRun(ds, evals.WithAgent(agent),
		evals.WithContextFactory(func(c *evals.Case) *helikon.RunContext {
			contexts++
			return helikon.NewRunContext(helikon.WithPrices(prices))
		}),
		evals.WithEvaluators(evals.NewExactMatch()))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil || !rep.Passed() || contexts != 2 || model.Remaining() != 0 {
		t.Fatalf("%v %v contexts=%d remaining=%d", rep, err, contexts, model.Remaining())
	}
	// mock.Text reports 10 input and 5 output tokens: 10*1 + 5*2 per million.
	if c := rep.Cases[0].Usage; c.Total() != 15 || c.Cost != 20e-6 {
		t.Errorf("case usage %+v", c)
	}
	if u := rep.Summary.Usage; u.Total() != 30 || u.Cost != 40e-6 {
		t.Errorf("total usage %+v", u)
	}
}

func TestRun_CancelledContextMarksUnstartedCases(t *testing.T) {
	ds := dataset(t, `{"input":"a"}`, `{"input":"b"}`, `{"input":"c"}`)
	ctx, cancel := context.WithCancel(context.Background())
	run, err := evals.NewRun(ds, evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
		cancel() // the first case cancels the run
		return helikon.NewAgent("a", mock.Scripted(mock.Text("x")))
	}))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(rep.Cases) != 3 || !strings.Contains(rep.Cases[2].Error, "not run") {
		t.Fatalf("cases %+v", rep.Cases)
	}
}

func TestNewRun_RejectsBadConfig(t *testing.T) {
	ds := dataset(t, `{"input":"a"}`)
	agent, _ := helikon.NewAgent("a", mock.Scripted())
	f := func(*evals.Case) (helikon.Agent, error) { return agent, nil }
	for name, opts := range map[string][]evals.RunOption{
		"no agent":      nil,
		"both":          {evals.WithAgent(agent), evals.WithAgentFactory(f)},
		"concurrency":   {evals.WithAgent(agent), evals.WithConcurrency(0)},
		"timeout":       {evals.WithAgent(agent), evals.WithCaseTimeout(-time.Second)},
		"nil evaluator": {evals.WithAgent(agent), evals.WithEvaluators(nil)},
	} {
		if _, err := evals.NewRun(ds, opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := evals.NewRun(nil, evals.WithAgent(agent)); err == nil {
		t.Error("nil dataset accepted")
	}
}

func TestReport_JSONRoundTripTableAndCheck(t *testing.T) {
	ds := dataset(t,
		`{"id":"ok","input":"a","expected":"sum is 42","expected_tools":["add"]}`,
		`{"id":"bad","input":"b","expected":"sum is 41"}`)
	run, err := evals.NewRun(ds,
		evals.WithAgentFactory(calcFactory(func(*evals.Case) []mock.Script { return s1("sum is 42") })),
		evals.WithEvaluators(evals.NewExactMatch(), mustTrajectory(t, evals.TrajectoryExact)),
		evals.WithRunID("run-1"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	back, err := evals.ReadReport(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back.RunID != "run-1" || back.Passed() || len(back.Cases) != 2 || back.Summary.Passed != 1 || back.Summary.MeanScore != rep.Summary.MeanScore {
		t.Fatalf("round trip: %+v", back)
	}
	if tr := back.Cases[0].Trace; len(tr) != 4 || tr[0].Kind != helikon.KindUserMessage || tr[1].Kind != helikon.KindToolCalled {
		t.Errorf("trace did not survive: %+v", tr)
	}
	table := rep.Table()
	for _, want := range []string{
		"CASE", "EXACT_MATCH", "TOOL_TRAJECTORY", "TOKENS",
		"ok    passed", "1.00 ok", "skip", "0.00 FAIL",
		"2 cases: 1 passed, 1 failed (0 errors)",
		"tool_trajectory: 1 passed, 0 failed, 1 skipped",
		`bad: exact_match: got "sum is 42", want "sum is 41"`,
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if err := rep.Check(0); !errors.Is(err, evals.ErrCasesFailed) {
		t.Errorf("Check = %v", err)
	}
	good := &evals.Report{Cases: rep.Cases[:1], Evaluators: rep.Evaluators}
	good.Summarize()
	if err := good.Check(0.5); err != nil {
		t.Errorf("passing report: %v", err)
	}
	low := &evals.Report{Summary: evals.Summary{MeanScore: 0.4}}
	if err := low.Check(0.5); !errors.Is(err, evals.ErrBelowThreshold) {
		t.Errorf("fail-under: %v", err)
	}
	if _, err := evals.ReadReport(strings.NewReader("{")); err == nil {
		t.Error("malformed report read")
	}
}

func TestProgress_PlainLinesAndBar(t *testing.T) {
	ds := dataset(t, `{"id":"a","input":"x","expected":"sum is 42"}`, `{"id":"b","input":"y","expected":"no"}`)
	for _, tc := range []struct {
		name string
		p    func(*bytes.Buffer) evals.Progress
		want []string
	}{
		{"lines", func(b *bytes.Buffer) evals.Progress { return evals.NewProgress(b) }, []string{"[1/2] a passed (", "[2/2] b failed ("}},
		{"bar", func(b *bytes.Buffer) evals.Progress { return evals.NewBarProgress(b) }, []string{"2/2", "1 passed, 1 failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			run, err := evals.NewRun(ds,
				evals.WithAgentFactory(calcFactory(func(*evals.Case) []mock.Script { return s1("sum is 42") })),
				evals.WithEvaluators(evals.NewExactMatch()),
				evals.WithProgress(tc.p(&buf)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := run.Execute(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("progress lacks %q:\n%q", w, buf.String())
				}
			}
		})
	}
}
