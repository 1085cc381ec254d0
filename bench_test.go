package helikon_test

import (
	"context"
	"fmt"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

var addTool = helikon.MustTool("add", "Add two integers.",
	func(tc *helikon.ToolContext, in addArgs) (addOut, error) { return addOut{Sum: in.A + in.B}, nil },
	helikon.WithEffect(helikon.ReadOnly))

// s1Scripts is the S1 scenario: one tool round, then the answer.
func s1Scripts() []mock.Script {
	return []mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	}
}

func BenchmarkRunS1OneToolRound(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("what is 40+2?")))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkRunnerS1 is S1 through the default runner with a MemorySession:
// the session load, the recorder and the appends, with no tracer provider.
func BenchmarkRunnerS1(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	r := runner.New()
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		rc := helikon.NewRunContext(helikon.WithSession(helikon.NewMemorySession()))
		res, err := r.Run(ctx, agent, rc, helikon.UserText("what is 40+2?"))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkRunnerVsCore times S1 through the core's Collect and through
// the default runner with a MemorySession within every iteration, so load
// drift on a shared machine hits both alike, and reports the ratio (x-core)
// the runner's budget is stated in: within 1.25. The two swap places every
// iteration, so neither always pays for the garbage the other left. Its own
// ns/op is the pair's.
func BenchmarkRunnerVsCore(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	r := runner.New()
	core := func() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("what is 40+2?")))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("core: got %v, %v", res, err)
		}
	}
	viaRunner := func() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		rc := helikon.NewRunContext(helikon.WithSession(helikon.NewMemorySession()))
		res, err := r.Run(ctx, agent, rc, helikon.UserText("what is 40+2?"))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("runner: got %v, %v", res, err)
		}
	}
	benchpair.Run(b, "core", core, "runner", viaRunner)
}

// BenchmarkRunS1Traced is S1 with an OpenTelemetry SDK provider that
// samples every span (and exports none): the cost of tracing when it is on.
func BenchmarkRunS1Traced(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	tp := sdktrace.NewTracerProvider()
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		rc := helikon.NewRunContext(helikon.WithTracerProvider(tp))
		res, err := helikon.Collect(agent.Run(ctx, rc, helikon.UserText("what is 40+2?")))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// s2Scripts is the S2 scenario: ten rounds of four parallel calls to add,
// then the answer.
func s2Scripts() []mock.Script {
	var scripts []mock.Script
	for r := range 10 {
		var calls []mock.Call
		for i := range 4 {
			calls = append(calls, mock.Call{ID: fmt.Sprintf("c%d_%d", r, i), Name: "add", Args: `{"a":40,"b":2}`})
		}
		scripts = append(scripts, mock.ToolCalls(calls...))
	}
	return append(scripts, mock.Text("done"))
}

func BenchmarkRunS2TenRoundsFourParallel(b *testing.B) {
	ctx := context.Background()
	scripts := s2Scripts()
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		if _, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("go"))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunS3Streaming1000Deltas(b *testing.B) {
	ctx := context.Background()
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = "tok "
	}
	scripts := []mock.Script{mock.Deltas(parts...)}
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("streamer", mock.New(scripts))
		n := 0
		for ev := range agent.Run(ctx, nil, helikon.UserText("stream")) {
			if _, ok := ev.(helikon.TokenDelta); ok {
				n++
			}
		}
		if n != 1000 {
			b.Fatalf("got %d deltas", n)
		}
	}
}
