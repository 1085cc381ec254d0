package evals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

// BenchmarkEvalRun1000Cases runs a 1,000-case dataset of S1 runs (one tool
// round on the mock model, a fresh agent and mock per case) scored by two
// evaluators at concurrency 8, and in the same iteration the same 1,000
// runs in a bare loop through the same runner, so that load drift on a
// shared machine hits both alike. The two swap places every iteration. It
// reports the eval's and the loop's cases/s and their ratio (x-loop, the
// eval's time over the loop's); its own ns/op is the pair's.
func BenchmarkEvalRun1000Cases(b *testing.B) {
	const n = 1000
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, `{"id":"c%d","input":"what is 40+2?","expected":"sum is 42","expected_tools":["add"]}`+"\n", i)
	}
	ds, err := evals.ParseDataset(strings.NewReader(src.String()), "bench.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	scripts := s1("sum is 42")
	rn := runner.New()
	run, err := evals.NewRun(ds,
		evals.WithAgentFactory(calcFactory(func(*evals.Case) []mock.Script { return scripts })),
		evals.WithEvaluators(evals.NewExactMatch(), mustTrajectory(b, evals.TrajectoryExact)),
		evals.WithConcurrency(8), evals.WithRunner(rn))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	eval := func() {
		rep, err := run.Execute(ctx)
		if err != nil || !rep.Passed() || len(rep.Cases) != n {
			b.Fatalf("eval: %v", err)
		}
	}
	loop := func() {
		for i := range ds.Cases {
			agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
			res, err := rn.Run(ctx, agent, helikon.NewRunContext(), helikon.UserText(ds.Cases[i].Input))
			if err != nil || res.FinalOutput != "sum is 42" {
				b.Fatalf("loop: %v %v", res, err)
			}
		}
	}
	b.ReportAllocs()
	tLoop, tEval := benchpair.Run(b, "loop", loop, "eval", eval)
	b.ReportMetric(float64(n*b.N)/tEval.Seconds(), "cases/s")
	b.ReportMetric(float64(n*b.N)/tLoop.Seconds(), "loop-cases/s")
}
