// Package evaltest builds small real reports for the sinks' tests: a
// calculator agent on the mock model run over a three-case dataset.
package evaltest

import (
	"context"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

var addTool = helikon.MustTool("add", "Add two integers.",
	func(tc *helikon.ToolContext, in addArgs) (int, error) { return in.A + in.B, nil })

// Dataset is the three cases Report runs: one passes, one fails exact
// match, one's run fails.
const Dataset = `{"id":"ok","input":"what is 40+2?","expected":"sum is 42","expected_tools":["add"],"metadata":{"tier":1}}
{"id":"wrong","input":"what is 40+1?","expected":"sum is 41"}
{"id":"broken","input":"what is 1+1?","metadata":{"fail":true}}
`

// Report runs [Dataset] as run runID and returns its report.
func Report(t testing.TB, runID string, opts ...evals.RunOption) *evals.Report {
	t.Helper()
	ds, err := evals.ParseDataset(strings.NewReader(Dataset), "calc.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tt, err := evals.NewToolTrajectory(evals.TrajectoryExact)
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]evals.RunOption{
		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
			scripts := []mock.Script{
				mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
				mock.Text("sum is 42"),
			}
			if c.Metadata["fail"] == true {
				scripts = []mock.Script{mock.Fail(&helikon.ModelError{Kind: helikon.ModelUnavailable, Provider: "mock", Message: "overloaded"})}
			}
			return helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		}),
		evals.WithEvaluators(evals.NewExactMatch(), tt),
		evals.WithRunID(runID),
		evals.WithConcurrency(2),
	}, opts...)
	run, err := evals.NewRun(ds, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
