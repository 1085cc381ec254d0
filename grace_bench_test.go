package helikon_test

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
)

// BenchmarkCancellableVsBackground measures what a cancellable context
// costs a run: with one, tool calls run off the consumer's goroutine so
// that one ignoring cancellation cannot hold the run past
// RunConfig.CancelGrace (the mock model honours cancellation and is read
// inline, as a provider's is). Both sides run in each iteration,
// alternating which goes first; x-background is the ratio.
func BenchmarkCancellableVsBackground(b *testing.B) {
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = "tok "
	}
	scenarios := []struct {
		name    string
		scripts []mock.Script
		tools   []helikon.Tool
		check   func(*helikon.RunResult) bool
	}{
		{"S1", s1Scripts(), []helikon.Tool{addTool}, func(r *helikon.RunResult) bool { return r.FinalOutput == "sum is 42" }},
		{"S2", s2Scripts(), []helikon.Tool{addTool}, func(r *helikon.RunResult) bool { return r.FinalOutput == "done" }},
		{"S3_1000deltas", []mock.Script{mock.Deltas(parts...)}, nil, func(r *helikon.RunResult) bool { return len(r.FinalOutput) == 4000 }},
	}
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			cancellable, cancel := context.WithCancel(context.Background())
			defer cancel()
			run := func(ctx context.Context) {
				agent, _ := helikon.NewAgent("a", mock.New(sc.scripts), helikon.WithTools(sc.tools...))
				res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("q")))
				if err != nil || !sc.check(res) {
					b.Fatalf("got %v events, %v", len(res.Events), err)
				}
			}
			b.ReportAllocs()
			benchpair.Run(b, "background", func() { run(context.Background()) }, "cancellable", func() { run(cancellable) })
		})
	}
}
