package evals_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

func ExampleRun() {
	ds, err := evals.ParseDataset(strings.NewReader(`{"id":"add","input":"what is 40+2?","expected":"sum is 42","expected_tools":["add"]}
{"id":"chat","input":"hello","expected_tools":[]}
`), "cases.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	scripts := map[string][]mock.Script{
		"add":  {mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("sum is 42")},
		"chat": {mock.Text("hi!")},
	}
	trajectory, _ := evals.NewToolTrajectory(evals.TrajectoryExact)
	run, err := evals.NewRun(ds,
		// A fresh agent on a fresh mock per case keeps scripts deterministic.
		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
			return helikon.NewAgent("calc", mock.New(scripts[c.ID]), helikon.WithTools(addTool))
		}),
		evals.WithEvaluators(evals.NewExactMatch(), trajectory),
		evals.WithConcurrency(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range rep.Cases {
		fmt.Printf("%s %s %q\n", c.Case.ID, c.Status(), c.Output)
	}
	for _, e := range rep.Summary.Evaluators {
		fmt.Printf("%s: %d passed, %d failed, %d skipped\n", e.Name, e.Passed, e.Failed, e.Skipped)
	}
	fmt.Println("passed:", rep.Passed())
	// Output:
	// add passed "sum is 42"
	// chat passed "hi!"
	// exact_match: 1 passed, 0 failed, 1 skipped
	// tool_trajectory: 2 passed, 0 failed, 0 skipped
	// passed: true
}

func ExampleDiff() {
	base := &evals.Report{RunID: "main", Evaluators: []string{"exact_match"}, Cases: []evals.CaseResult{
		{Case: evals.Case{ID: "refund"}, Scores: []evals.Score{{Evaluator: "exact_match", Value: 1, Verdict: evals.Passed}}},
		{Case: evals.Case{ID: "budget"}, Scores: []evals.Score{{Evaluator: "exact_match", Value: 0, Verdict: evals.Failed}}},
	}}
	head := &evals.Report{RunID: "pr-12", Evaluators: []string{"exact_match"}, Cases: []evals.CaseResult{
		{Case: evals.Case{ID: "refund"}, Scores: []evals.Score{{Evaluator: "exact_match", Value: 0, Verdict: evals.Failed}}},
		{Case: evals.Case{ID: "budget"}, Scores: []evals.Score{{Evaluator: "exact_match", Value: 1, Verdict: evals.Passed}}},
	}}
	base.Summarize()
	head.Summarize()
	_ = evals.Diff(base, head).WriteMarkdown(os.Stdout)
	// Output:
	// **1 regressed, 1 improved, 0 added, 0 removed; mean score +0.000** (main → pr-12)
	//
	// | case | change | base | head | scores |
	// | --- | --- | --- | --- | --- |
	// | refund | regressed | passed | failed | exact_match 1.00 → 0.00 |
	// | budget | improved | failed | passed | exact_match 0.00 → 1.00 |
}
