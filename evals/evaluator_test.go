package evals_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

func outcome(final string, tools ...string) *evals.Outcome {
	out := &evals.Outcome{FinalOutput: final}
	for _, n := range tools {
		out.ToolCalls = append(out.ToolCalls, evals.ToolCall{Name: n})
	}
	return out
}

func TestExactMatch_StringsAndStructuralJSON(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, expected, output string
		want                   evals.Verdict
	}{
		{"string equal", `"sum is 42"`, "sum is 42", evals.Passed},
		{"string trims white space", `"sum is 42"`, "  sum is 42\n", evals.Passed},
		{"string differs", `"sum is 42"`, "sum is 41", evals.Failed},
		{"string is not parsed as JSON", `"{\"a\":1}"`, `{ "a": 1 }`, evals.Failed},
		{"json member order and spacing", `{"a":1,"b":[true,null]}`, `{ "b": [true, null], "a": 1 }`, evals.Passed},
		{"json number spelling", `{"x":1}`, `{"x":1.0}`, evals.Passed},
		{"json big numbers exactly", `{"x":12345678901234567890}`, `{"x":12345678901234567891}`, evals.Failed},
		{"json nested difference", `{"a":{"b":[1,2]}}`, `{"a":{"b":[1,3]}}`, evals.Failed},
		{"json extra member", `{"a":1}`, `{"a":1,"b":2}`, evals.Failed},
		{"output not json", `{"a":1}`, `a is 1`, evals.Failed},
		{"output trailing data", `[1]`, `[1] [2]`, evals.Failed},
		{"json scalar", `42`, `42`, evals.Passed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &evals.Case{Expected: json.RawMessage(tc.expected)}
			s, err := evals.NewExactMatch().Evaluate(ctx, c, outcome(tc.output))
			if err != nil || s.Verdict != tc.want {
				t.Fatalf("got %+v, %v; want %s", s, err, tc.want)
			}
			if (s.Value == 1) != (tc.want == evals.Passed) {
				t.Errorf("value %v with verdict %s", s.Value, s.Verdict)
			}
			if tc.want == evals.Failed && s.Reason == "" {
				t.Error("a failure must say why")
			}
		})
	}
	for _, c := range []*evals.Case{{}, {Expected: json.RawMessage{}}} {
		if s, err := evals.NewExactMatch().Evaluate(ctx, c, outcome("x")); err != nil || s.Verdict != evals.Skipped {
			t.Errorf("no expected value: %+v %v, want a skip", s, err)
		}
	}
}

func TestToolTrajectory_Modes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode      evals.TrajectoryMode
		want, got []string
		verdict   evals.Verdict
		value     float64
	}{
		{evals.TrajectoryExact, []string{"a", "b"}, []string{"a", "b"}, evals.Passed, 1},
		{evals.TrajectoryExact, []string{"a", "b"}, []string{"b", "a"}, evals.Failed, 0},
		{evals.TrajectoryExact, []string{"a"}, []string{"a", "a"}, evals.Failed, 0},
		{evals.TrajectoryInOrder, []string{"a", "c"}, []string{"a", "b", "c"}, evals.Passed, 1},
		{evals.TrajectoryInOrder, []string{"a", "c"}, []string{"c", "a"}, evals.Failed, 0.5},
		{evals.TrajectoryInOrder, []string{"a", "b", "c", "d"}, []string{"a", "x", "b"}, evals.Failed, 0.5},
		{evals.TrajectoryAnyOrder, []string{"a", "b"}, []string{"b", "x", "a"}, evals.Passed, 1},
		{evals.TrajectoryAnyOrder, []string{"a", "a", "b"}, []string{"a", "b"}, evals.Failed, 2.0 / 3},
		{evals.TrajectoryExact, []string{}, nil, evals.Passed, 1},
		{evals.TrajectoryAnyOrder, []string{}, []string{"a"}, evals.Failed, 0},
		{evals.TrajectoryInOrder, []string{}, []string{"a"}, evals.Failed, 0},
	} {
		tt, err := evals.NewToolTrajectory(tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		s, err := tt.Evaluate(ctx, &evals.Case{ExpectedTools: tc.want}, outcome("", tc.got...))
		if err != nil || s.Verdict != tc.verdict || s.Value != tc.value {
			t.Errorf("%s want %v got %v: %+v %v; want %s %v", tc.mode, tc.want, tc.got, s, err, tc.verdict, tc.value)
		}
	}
	tt, _ := evals.NewToolTrajectory(evals.TrajectoryExact)
	if s, _ := tt.Evaluate(ctx, &evals.Case{}, outcome("", "a")); s.Verdict != evals.Skipped {
		t.Errorf("no expected_tools: %+v, want a skip", s)
	}
	if _, err := evals.NewToolTrajectory("sideways"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestJSONSchema_ValidatesTheOutputAgainstAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "answer.json")
	schema := `{"type":"object","properties":{"sum":{"type":"integer","minimum":0}},"required":["sum"],"additionalProperties":false}`
	if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	js, err := evals.LoadJSONSchema(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for out, want := range map[string]evals.Verdict{
		`{"sum": 42}`:           evals.Passed,
		`{"sum": -1}`:           evals.Failed,
		`{"total": 42}`:         evals.Failed,
		`{"sum": 42, "x": 1}`:   evals.Failed,
		`the sum is 42`:         evals.Failed,
		strings.Repeat(" ", 10): evals.Failed,
	} {
		s, err := js.Evaluate(ctx, &evals.Case{}, outcome(out))
		if err != nil || s.Verdict != want || (want == evals.Failed && s.Reason == "") {
			t.Errorf("%q: %+v %v, want %s", out, s, err, want)
		}
	}
	if err := os.WriteFile(path, []byte(`{"type": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := evals.LoadJSONSchema(path); err == nil {
		t.Error("a malformed schema loaded")
	}
	if _, err := evals.LoadJSONSchema(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing schema loaded")
	}
}

func TestLLMJudge_GradesOnTheMockModelAndKeepsItsReasoning(t *testing.T) {
	ctx := context.Background()
	judge := mock.Scripted(
		mock.Text(`{"score": 0.9, "reasoning": "correct and concise"}`),
		mock.Text(`{"score": 0.4, "reasoning": "wrong sum"}`),
		mock.Text(`{"score": 1.5, "reasoning": "off the scale"}`),
		mock.Text(`not json at all`), mock.Text(`still not json`), mock.Text(`nor this`),
	)
	j, err := evals.NewLLMJudge(judge, "The answer states the correct sum.", 0.7)
	if err != nil {
		t.Fatal(err)
	}
	c := &evals.Case{Input: "what is 40+2?", Expected: json.RawMessage(`"42"`)}
	s, err := j.Evaluate(ctx, c, outcome("sum is 42"))
	if err != nil || s.Verdict != evals.Passed || s.Value != 0.9 || s.Reason != "correct and concise" || s.Usage.Total() == 0 {
		t.Fatalf("high grade: %+v %v", s, err)
	}
	prompt := judge.Requests()[0]
	var seen string
	for _, it := range prompt.Messages {
		seen += it.Text()
	}
	for _, want := range []string{"what is 40+2?", `"42"`, "sum is 42"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the judge was not shown %q: %s", want, seen)
		}
	}
	if s, err := j.Evaluate(ctx, c, outcome("sum is 41")); err != nil || s.Verdict != evals.Failed || s.Value != 0.4 || s.Reason != "wrong sum" {
		t.Errorf("low grade: %+v %v", s, err)
	}
	if _, err := j.Evaluate(ctx, c, outcome("x")); err == nil || !strings.Contains(err.Error(), "outside [0, 1]") {
		t.Errorf("out-of-range grade: %v", err)
	}
	if _, err := j.Evaluate(ctx, c, outcome("x")); err == nil {
		t.Error("an unparseable verdict must fail the evaluation")
	}
	for _, bad := range []func() error{
		func() error { _, err := evals.NewLLMJudge(nil, "r", 0.5); return err },
		func() error { _, err := evals.NewLLMJudge(judge, " ", 0.5); return err },
		func() error { _, err := evals.NewLLMJudge(judge, "r", 1.5); return err },
	} {
		if bad() == nil {
			t.Error("bad judge config accepted")
		}
	}
}

func TestLLMJudge_PerCaseModelsStayDeterministicUnderConcurrency(t *testing.T) {
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf(`{"id":"c%d","input":"q%d","metadata":{"grade":%d}}`, i, i, i%2))
	}
	ds := dataset(t, lines...)
	judge, err := evals.NewLLMJudge(mock.Scripted(), "fits", 0.5,
		evals.WithJudgeModelPerCase(func(c *evals.Case) helikon.Model {
			// Odd cases get a passing grade, even ones a failing grade.
			return mock.New([]mock.Script{mock.Text(fmt.Sprintf(`{"score": %s, "reasoning": "%s"}`, c.Metadata["grade"], c.ID))},
				mock.WithDelay(time.Duration(len(c.ID))*100*time.Microsecond))
		}))
	if err != nil {
		t.Fatal(err)
	}
	run, err := evals.NewRun(ds,
		evals.WithAgentFactory(func(*evals.Case) (helikon.Agent, error) {
			return helikon.NewAgent("a", mock.Scripted(mock.Text("answer")))
		}),
		evals.WithEvaluators(judge), evals.WithConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range rep.Cases {
		s, _ := c.Score("llm_judge")
		want := evals.Failed
		if i%2 == 1 {
			want = evals.Passed
		}
		if s.Verdict != want || s.Reason != c.Case.ID {
			t.Errorf("%s: %+v, want %s with its own reasoning", c.Case.ID, s, want)
		}
	}
}
