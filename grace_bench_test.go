package helikon_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

// BenchmarkCancellableVsBackground measures what a cancellable context
// costs a run: with one, tool calls run off the consumer's goroutine so
// that one ignoring cancellation cannot hold the run past
// RunConfig.CancelGrace (the mock model honours cancellation and is read
// inline, as a provider's is). S1–S3 are the README's scenarios on one
// LLM agent, S4 a workflow.Parallel over three agents; S1 and S2 run again
// with a tool that promises to honour cancellation, whose calls a
// cancellable run makes on its own goroutine. Both sides run in
// each iteration, alternating which goes first; x-background is the ratio.
func BenchmarkCancellableVsBackground(b *testing.B) {
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = "tok "
	}
	// llm builds the scenario's agent from its scripts: one LLM agent.
	llm := func(scripts []mock.Script, tools ...helikon.Tool) func() helikon.Agent {
		return func() helikon.Agent {
			agent, _ := helikon.NewAgent("a", mock.New(scripts), helikon.WithTools(tools...))
			return agent
		}
	}
	// parallel is S4: a Parallel agent over three agents that each answer
	// at once.
	parallel := func() helikon.Agent {
		var steps []workflow.WorkflowOption
		for _, name := range []string{"a", "b", "c"} {
			agent, _ := helikon.NewAgent(name, mock.Scripted(mock.Text(name)))
			steps = append(steps, workflow.Step(agent))
		}
		p, _ := workflow.NewParallel("p", steps...)
		return p
	}
	// promisingAdd is addTool promising to honour cancellation
	// (WithHonoursCancellation): a cancellable run calls it on its own
	// goroutine.
	promisingAdd := helikon.MustTool("add", "Add two integers.",
		func(tc *helikon.ToolContext, in addArgs) (addOut, error) { return addOut{Sum: in.A + in.B}, nil },
		helikon.WithEffect(helikon.ReadOnly), helikon.WithHonoursCancellation())
	scenarios := []struct {
		name  string
		agent func() helikon.Agent
		check func(*helikon.RunResult) bool
	}{
		{"S1", llm(s1Scripts(), addTool), func(r *helikon.RunResult) bool { return r.FinalOutput == "sum is 42" }},
		{"S2", llm(s2Scripts(), addTool), func(r *helikon.RunResult) bool { return r.FinalOutput == "done" }},
		{"S1_promising", llm(s1Scripts(), promisingAdd), func(r *helikon.RunResult) bool { return r.FinalOutput == "sum is 42" }},
		{"S2_promising", llm(s2Scripts(), promisingAdd), func(r *helikon.RunResult) bool { return r.FinalOutput == "done" }},
		{"S3_1000deltas", llm([]mock.Script{mock.Deltas(parts...)}), func(r *helikon.RunResult) bool { return len(r.FinalOutput) == 4000 }},
		{"S4_parallel3", parallel, func(r *helikon.RunResult) bool { return r.FinalOutput == `{"a":"a","b":"b","c":"c"}` }},
	}
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			cancellable, cancel := context.WithCancel(context.Background())
			defer cancel()
			run := func(ctx context.Context) {
				res, err := helikon.Collect(sc.agent().Run(ctx, nil, helikon.UserText("q")))
				if err != nil || !sc.check(res) {
					b.Fatalf("got %v events, %v", len(res.Events), err)
				}
			}
			b.ReportAllocs()
			benchpair.Run(b, "background", func() { run(context.Background()) }, "cancellable", func() { run(cancellable) })
		})
	}
	// S2_64inflight is a busy server: 64 cancellable S2 runs in flight on
	// every processor, each waiting on workers for its rounds; ns/op is
	// the time a run takes of the whole, so a change that makes waiting
	// drivers compete with the workers they wait for shows here, where a
	// run at a time cannot.
	b.Run("S2_64inflight", func(b *testing.B) {
		cancellable, cancel := context.WithCancel(context.Background())
		defer cancel()
		agent := llm(s2Scripts(), addTool)
		b.ReportAllocs()
		b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := helikon.Collect(agent().Run(cancellable, nil, helikon.UserText("q")))
				if err != nil || res.FinalOutput != "done" {
					b.Errorf("run: %v", err)
					return
				}
			}
		})
	})
}
