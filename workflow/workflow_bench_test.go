package workflow_test

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// The multi-agent benchmarks build their agents inside the loop, as the
// baseline does, because a mock model plays each script once: every figure
// is construction plus run, and the ratios compare like with like.

var benchInput = helikon.UserText("go")

func benchAgent(name string) *helikon.LLMAgent {
	a, _ := helikon.NewAgent(name, mock.Scripted(mock.Text(name)))
	return a
}

func collectWant(ctx context.Context, a helikon.Agent, want string) error {
	res, err := helikon.Collect(a.Run(ctx, nil, benchInput))
	if err != nil {
		return err
	}
	if res.FinalOutput != want {
		return fmt.Errorf("final output %q, want %q", res.FinalOutput, want)
	}
	return nil
}

// runSingle is the baseline: one agent, one model turn that answers.
func runSingle(ctx context.Context) error {
	return collectWant(ctx, benchAgent("solo"), "solo")
}

// runSequential3 runs three one-turn agents one after another on the
// caller's goroutine.
func runSequential3(ctx context.Context) error {
	s, err := workflow.NewSequential("s", workflow.Step(benchAgent("a")), workflow.Step(benchAgent("b")), workflow.Step(benchAgent("c")))
	if err != nil {
		return err
	}
	return collectWant(ctx, s, "c")
}

// runParallel3 runs the same three agents as concurrent branches.
func runParallel3(ctx context.Context) error {
	p, err := workflow.NewParallel("p", workflow.Step(benchAgent("a")), workflow.Step(benchAgent("b")), workflow.Step(benchAgent("c")))
	if err != nil {
		return err
	}
	return collectWant(ctx, p, `{"a":"a","b":"b","c":"c"}`)
}

// runGraphDiamond runs top → left, right → bottom, one answering turn per
// node.
func runGraphDiamond(ctx context.Context) error {
	g, err := diamond(benchAgent("top"), benchAgent("left"), benchAgent("right"), benchAgent("bottom"))
	if err != nil {
		return err
	}
	return collectWant(ctx, g, "bottom")
}

// replayAgent is a node that replays a finished run's events, built
// once: a graph of them costs what the graph itself does, its build, its
// nodes' inputs and contexts, its fan-in and its own events, with no
// agent run beside it.
type replayAgent struct {
	name string
	evs  []helikon.Event
}

func newReplayAgent(name string) *replayAgent {
	at := time.Now().UTC()
	return &replayAgent{name: name, evs: []helikon.Event{
		helikon.RunStarted{Agent: name, At: at},
		helikon.MessageOutput{At: at, Item: helikon.Item{Role: helikon.RoleAssistant, Agent: name, Content: []helikon.ContentPart{helikon.TextPart{Text: name}}}},
		helikon.RunCompleted{Agent: name, At: at},
	}}
}

func (a *replayAgent) Name() string        { return a.name }
func (a *replayAgent) Description() string { return "" }
func (a *replayAgent) Run(context.Context, *helikon.RunContext, []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		for _, ev := range a.evs {
			if !yield(ev) {
				return
			}
		}
	}
}

var replays = [...]*replayAgent{newReplayAgent("top"), newReplayAgent("left"), newReplayAgent("right"), newReplayAgent("bottom")}

// runGraphDiamondLayer is runGraphDiamond over replaying nodes: the graph
// layer's own cost, which a child run's savings over a top-level run (its
// run context, its consumer's Collect) must cover for the graph to cost
// no more than its nodes run alone.
func runGraphDiamondLayer(ctx context.Context) error {
	g, err := diamond(replays[0], replays[1], replays[2], replays[3])
	if err != nil {
		return err
	}
	return collectWant(ctx, g, "bottom")
}

func bench(b *testing.B, run func(context.Context) error) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSingleAgentOneTurn(b *testing.B) { bench(b, runSingle) }
func BenchmarkSequential3Steps(b *testing.B)   { bench(b, runSequential3) }
func BenchmarkParallel3Branches(b *testing.B)  { bench(b, runParallel3) }
func BenchmarkGraphDiamond4Nodes(b *testing.B) { bench(b, runGraphDiamond) }

// BenchmarkGraphDiamondLayer is the diamond over nodes that replay a
// finished run: what the graph costs beyond its nodes' runs.
func BenchmarkGraphDiamondLayer(b *testing.B) { bench(b, runGraphDiamondLayer) }

// BenchmarkVsSingle times each pattern and the single-agent baseline
// alternately within every iteration, so load drift on a shared machine
// hits both alike, and reports the ratio (x-single) next to both times. Its
// own ns/op is the pair's. x-single-med is the ratio of the two median
// times over the last 4,096 iterations: on a loaded machine a few
// iterations preempted for milliseconds move the sums, not the medians.
func BenchmarkVsSingle(b *testing.B) { vsSingle(b, context.Background()) }

// BenchmarkVsSingleCancellable is BenchmarkVsSingle on a context that can
// be cancelled, as a server request's is: the single run and every child
// run then read their model on a worker goroutine.
func BenchmarkVsSingleCancellable(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	vsSingle(b, ctx)
}

func vsSingle(b *testing.B, ctx context.Context) {
	for _, bc := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"Sequential3Steps", runSequential3},
		{"Parallel3Branches", runParallel3},
		{"GraphDiamond4Nodes", runGraphDiamond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var single, pattern time.Duration
			// Made before the loop, whose allocations the benchmark counts.
			singles, patterns := make([]time.Duration, medianOf), make([]time.Duration, medianOf)
			n := 0
			for b.Loop() {
				t0 := time.Now()
				if err := runSingle(ctx); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := bc.run(ctx); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				single += t1.Sub(t0)
				pattern += t2.Sub(t1)
				singles[n%medianOf], patterns[n%medianOf] = t1.Sub(t0), t2.Sub(t1)
				n++
			}
			b.ReportMetric(float64(single.Nanoseconds())/float64(b.N), "ns-single/op")
			b.ReportMetric(float64(pattern.Nanoseconds())/float64(b.N), "ns-pattern/op")
			b.ReportMetric(float64(pattern)/float64(single), "x-single")
			b.ReportMetric(float64(median(patterns[:min(n, medianOf)]))/float64(median(singles[:min(n, medianOf)])), "x-single-med")
		})
	}
}

// medianOf is how many of the last iterations x-single-med reads.
const medianOf = 4096

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
