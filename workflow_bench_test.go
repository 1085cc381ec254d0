package helikon_test

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// The multi-agent benchmarks build their agents inside the loop, as the
// baseline does, because a mock model plays each script once: every figure
// is construction plus run, and the ratios compare like with like.

// BenchmarkSingleAgentOneTurn is the baseline: one agent, one model turn
// that answers.
func BenchmarkSingleAgentOneTurn(b *testing.B) {
	ctx := context.Background()
	input := helikon.UserText("go")
	b.ReportAllocs()
	for b.Loop() {
		a, _ := helikon.NewAgent("solo", mock.Scripted(mock.Text("answer")))
		res, err := helikon.Collect(a.Run(ctx, nil, input))
		if err != nil || res.FinalOutput != "answer" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkSequential3Steps: the same three one-turn agents as
// BenchmarkParallel3Branches, one after another on the caller's goroutine;
// the difference between the two is the cost of running them concurrently.
func BenchmarkSequential3Steps(b *testing.B) {
	ctx := context.Background()
	input := helikon.UserText("go")
	b.ReportAllocs()
	for b.Loop() {
		s, err := helikon.NewSequential("s",
			helikon.Step(benchAgent("a")), helikon.Step(benchAgent("b")), helikon.Step(benchAgent("c")))
		if err != nil {
			b.Fatal(err)
		}
		res, err := helikon.Collect(s.Run(ctx, nil, input))
		if err != nil || res.FinalOutput != "c" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkParallel3Branches: three branches of one answering turn each.
func BenchmarkParallel3Branches(b *testing.B) {
	ctx := context.Background()
	input := helikon.UserText("go")
	b.ReportAllocs()
	for b.Loop() {
		p, err := helikon.NewParallel("p",
			helikon.Step(benchAgent("a")), helikon.Step(benchAgent("b")), helikon.Step(benchAgent("c")))
		if err != nil {
			b.Fatal(err)
		}
		res, err := helikon.Collect(p.Run(ctx, nil, input))
		if err != nil || res.FinalOutput != `{"a":"a","b":"b","c":"c"}` {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkGraphDiamond4Nodes: top → left, right → bottom, one answering
// turn per node.
func BenchmarkGraphDiamond4Nodes(b *testing.B) {
	ctx := context.Background()
	input := helikon.UserText("go")
	b.ReportAllocs()
	for b.Loop() {
		g, err := helikon.NewGraph("g",
			helikon.Node("top", benchAgent("top")), helikon.Node("left", benchAgent("left")),
			helikon.Node("right", benchAgent("right")), helikon.Node("bottom", benchAgent("bottom")),
			helikon.Edge("top", "left"), helikon.Edge("top", "right"),
			helikon.Edge("left", "bottom"), helikon.Edge("right", "bottom"))
		if err != nil {
			b.Fatal(err)
		}
		res, err := helikon.Collect(g.Run(ctx, nil, input))
		if err != nil || res.FinalOutput != "bottom" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

func benchAgent(name string) *helikon.LLMAgent {
	a, _ := helikon.NewAgent(name, mock.Scripted(mock.Text(name)))
	return a
}
