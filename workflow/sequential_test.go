package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// readsState is an instruction function that quotes the State under key.
func readsState(key string) helikon.AgentOption {
	return helikon.WithInstructionsFunc(func(_ context.Context, rc *helikon.RunContext) (string, error) {
		return "Notes: " + rc.State().String(key), nil
	})
}

// slowAgent answers text after a delay per streamed event, unless cancelled.
func slowAgent(t testing.TB, name, text string, delay time.Duration) *helikon.LLMAgent {
	t.Helper()
	return mustAgent(t, name, mock.New([]mock.Script{mock.Text(text)}, mock.WithDelay(delay)))
}

func TestSequential_StepsRunInOrderThroughState(t *testing.T) {
	writerModel := mock.Scripted(mock.Text("Brief: rates are up."))
	researcher := answerer(t, "researcher", "rates rose 0.25%")
	writer := mustAgent(t, "writer", writerModel, readsState("researcher"))
	seq, err := workflow.NewSequential("research-then-write", workflow.Step(researcher), workflow.Step(writer))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(seq.Run(context.Background(), rc, helikon.UserText("what about rates?")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run_started",
		"agent_updated", "turn_started", "token_delta", "model_responded", "message_output",
		"agent_updated", "turn_started", "token_delta", "model_responded", "message_output",
		"run_completed"}
	if got := typesOf(res.Events); !slicesEqual(got, want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	if s := res.Events[0].(helikon.RunStarted); s.Agent != "research-then-write" {
		t.Errorf("run started by %q", s.Agent)
	}
	if c := res.Events[len(res.Events)-1].(helikon.RunCompleted); c.Agent != "writer" {
		t.Errorf("run completed by %q; want the last step's agent", c.Agent)
	}
	if res.FinalOutput != "Brief: rates are up." || res.LastAgent != "writer" {
		t.Errorf("final = %q by %q", res.FinalOutput, res.LastAgent)
	}
	if res.Usage != (helikon.Usage{InputTokens: 20, OutputTokens: 10}) {
		t.Errorf("usage = %+v, want both steps summed", res.Usage)
	}
	if got := writerModel.Requests()[0].Messages[0].Text(); got != "Notes: rates rose 0.25%" {
		t.Errorf("writer's instructions = %q", got)
	}
	if rc.State().String("researcher") != "rates rose 0.25%" || rc.State().String("writer") != "Brief: rates are up." {
		t.Errorf("state = %v", rc.State().Snapshot())
	}
	// Every step gets the run's input, not the previous step's output.
	if got := writerModel.Requests()[0].Messages[1].Text(); got != "what about rates?" {
		t.Errorf("writer's input = %q", got)
	}
}

func TestSequential_KeyedStepsShareAnAgentName(t *testing.T) {
	seq, err := workflow.NewSequential("twice",
		workflow.KeyedStep("first", answerer(t, "drafter", "v1")),
		workflow.KeyedStep("second", answerer(t, "drafter", "v2")))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	if _, err := helikon.Collect(seq.Run(context.Background(), rc, helikon.UserText("go"))); err != nil {
		t.Fatal(err)
	}
	if rc.State().String("first") != "v1" || rc.State().String("second") != "v2" {
		t.Errorf("state = %v", rc.State().Snapshot())
	}
}

func TestSequential_FailsFastOnTheFirstFailure(t *testing.T) {
	thirdModel := mock.Scripted(mock.Text("never"))
	seq, err := workflow.NewSequential("p",
		workflow.Step(answerer(t, "one", "ok")),
		workflow.Step(mustAgent(t, "two", mock.Scripted(mock.Fail(errors.New("model down"))))),
		workflow.Step(mustAgent(t, "three", thirdModel)))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(seq.Run(context.Background(), rc, helikon.UserText("go")))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindModel || ae.Agent != "two" {
		t.Fatalf("err = %v, want step two's model failure", err)
	}
	if len(thirdModel.Requests()) != 0 {
		t.Error("the step after the failure ran")
	}
	if countEvents[helikon.RunFailed](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 0 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	if _, ok := rc.State().Get("two"); ok {
		t.Error("a failed step wrote state")
	}
}

func TestSequential_FiresOnSubagentStopPerStep(t *testing.T) {
	var stopped []string
	hooks := helikon.NewHookRegistry(helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.OnSubagentStop {
			stopped = append(stopped, ev.Agent)
		}
		return helikon.HookDecision{}
	}))
	seq, _ := workflow.NewSequential("p", workflow.Step(answerer(t, "a", "1")), workflow.Step(answerer(t, "b", "2")))
	if _, err := helikon.Collect(seq.Run(context.Background(), helikon.NewRunContext(helikon.WithHookRegistry(hooks)), helikon.UserText("go"))); err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(stopped, []string{"a", "b"}) {
		t.Errorf("OnSubagentStop fired for %v", stopped)
	}
}

func TestWorkflow_BuildErrors(t *testing.T) {
	a := answerer(t, "a", "x")
	tests := []struct {
		name  string
		build func() error
		want  error
	}{
		{"sequential without steps", func() error { _, err := workflow.NewSequential("p"); return err }, workflow.ErrNoSubAgents},
		{"sequential without a name", func() error { _, err := workflow.NewSequential("", workflow.Step(a)); return err }, helikon.ErrInvalidOption},
		{"sequential with a nil agent", func() error { _, err := workflow.NewSequential("p", workflow.Step(nil)); return err }, helikon.ErrInvalidOption},
		{"sequential with an empty key", func() error { _, err := workflow.NewSequential("p", workflow.KeyedStep("", a)); return err }, helikon.ErrInvalidOption},
		{"sequential with one agent twice", func() error { _, err := workflow.NewSequential("p", workflow.Step(a), workflow.Step(a)); return err }, helikon.ErrDuplicateKey},
		{"parallel with duplicate keys", func() error {
			_, err := workflow.NewParallel("p", workflow.Step(a), workflow.KeyedStep("a", answerer(t, "b", "y")))
			return err
		}, helikon.ErrDuplicateKey},
		{"parallel without branches", func() error { _, err := workflow.NewParallel("p"); return err }, workflow.ErrNoSubAgents},
		{"loop without steps", func() error { _, err := workflow.NewLoop("l", 3); return err }, workflow.ErrNoSubAgents},
		{"loop with no iterations", func() error { _, err := workflow.NewLoop("l", 0, workflow.Step(a)); return err }, helikon.ErrInvalidOption},
		{"loop with duplicate keys", func() error { _, err := workflow.NewLoop("l", 2, workflow.Step(a), workflow.Step(a)); return err }, helikon.ErrDuplicateKey},
		{"parallel with an option wrapping a step", func() error { _, err := workflow.NewParallel("p", wrappedStep{workflow.Step(a)}); return err }, helikon.ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build()
			var be *helikon.BuildError
			if !errors.Is(err, tt.want) || !errors.As(err, &be) {
				t.Fatalf("err = %v, want a BuildError matching %v", err, tt.want)
			}
		})
	}
}

// wrappedStep is a user's type embedding a step option.
type wrappedStep struct{ workflow.StepOption }

func TestParallel_BuildingAllocatesThreeTimes(t *testing.T) {
	a, b, c := answerer(t, "a", "x"), answerer(t, "b", "x"), answerer(t, "c", "x")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := workflow.NewParallel("p", workflow.Step(a), workflow.Step(b), workflow.Step(c)); err != nil {
			t.Fatal(err)
		}
	})
	// The agent, its steps and their key order: the options stay on the
	// caller's stack.
	if allocs != 3 {
		t.Errorf("a parallel agent's build allocates %v times, want 3", allocs)
	}
}

func TestSequential_NestsAParallelStep(t *testing.T) {
	fan, err := workflow.NewParallel("views", workflow.Step(answerer(t, "bull", "up")), workflow.Step(answerer(t, "bear", "down")))
	if err != nil {
		t.Fatal(err)
	}
	judgeModel := mock.Scripted(mock.Text("mixed"))
	seq, err := workflow.NewSequential("p", workflow.Step(fan), workflow.Step(mustAgent(t, "judge", judgeModel, readsState("views"))))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(seq.Run(context.Background(), rc, helikon.UserText("market?")))
	if err != nil {
		t.Fatal(err)
	}
	if got := judgeModel.Requests()[0].Messages[0].Text(); got != `Notes: {"bear":"down","bull":"up"}` {
		t.Errorf("judge's instructions = %q", got)
	}
	if rc.State().String("bull") != "up" || res.FinalOutput != "mixed" {
		t.Errorf("state %v, final %q", rc.State().Snapshot(), res.FinalOutput)
	}
	if countEvents[helikon.RunStarted](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 1 {
		t.Errorf("nested lifecycle events leaked: %v", typesOf(res.Events))
	}
	if res.Usage != (helikon.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Errorf("usage = %+v, want three turns", res.Usage)
	}
}

// cancellationCase runs agent, cancels it once the first event of the
// second model turn arrives (or breaks out instead), and checks the outcome
// and that no goroutine is left.
func cancelMidRun(t *testing.T, agent helikon.Agent, breakOut bool) {
	t.Helper()
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var deltas atomic.Int32
	var last helikon.Event
	var failed error
	for ev := range agent.Run(ctx, nil, helikon.UserText("go")) {
		last = ev
		if f, ok := ev.(helikon.RunFailed); ok {
			failed = f.Err
		}
		if _, ok := ev.(helikon.TokenDelta); ok && deltas.Add(1) == 1 {
			if breakOut {
				break
			}
			cancel()
		}
	}
	if breakOut {
		if _, ok := last.(helikon.TokenDelta); !ok {
			t.Errorf("last event = %T, want the delta we broke on", last)
		}
	} else if !errors.Is(failed, helikon.ErrCancelled) {
		t.Errorf("run ended with %T (%v), want a Cancelled RunFailed", last, failed)
	}
	settleGoroutines(t, base)
}

func TestWorkflow_CancellationMidRunLeaksNothing(t *testing.T) {
	slow := func(name string) helikon.Agent { return slowAgent(t, name, "text of "+name, 20*time.Millisecond) }
	agents := map[string]func() helikon.Agent{
		"sequential": func() helikon.Agent {
			a, _ := workflow.NewSequential("s", workflow.Step(answerer(t, "fast", "x")), workflow.Step(slow("a")), workflow.Step(slow("b")))
			return a
		},
		"parallel": func() helikon.Agent {
			a, _ := workflow.NewParallel("p", workflow.Step(slow("a")), workflow.Step(slow("b")), workflow.Step(slow("c")))
			return a
		},
		"loop": func() helikon.Agent {
			a, _ := workflow.NewLoop("l", 3, workflow.Step(slow("a")))
			return a
		},
		"graph": func() helikon.Agent {
			a, _ := workflow.NewGraph("g", workflow.Node("a", slow("a")), workflow.Node("b", slow("b")), workflow.Node("c", slow("c")),
				workflow.Edge("a", "c"), workflow.Edge("b", "c"))
			return a
		},
		"swarm": func() helikon.Agent {
			first := mustAgent(t, "first", mock.Scripted(transfer("second")))
			second := mustAgent(t, "second", mock.New([]mock.Script{mock.Deltas("a", "b", "c")}, mock.WithDelay(20*time.Millisecond)))
			a, _ := workflow.NewSwarm("w", workflow.Members(first, second))
			return a
		},
	}
	for name, build := range agents {
		for _, breakOut := range []bool{false, true} {
			mode := "cancel"
			if breakOut {
				mode = "break"
			}
			t.Run(name+"/"+mode, func(t *testing.T) { cancelMidRun(t, build(), breakOut) })
		}
	}
}

func TestWorkflow_NestingIsBoundedByMaxAgentDepth(t *testing.T) {
	// Each level is one deeper: outer 0, middle 1, inner 2, then the leaf 3.
	// The leaf does not check depth itself, so the workflows must.
	leafRan := false
	nest := func() helikon.Agent {
		leaf := agentFunc("leaf", func(_ context.Context, yield func(helikon.Event) bool) {
			leafRan = true
			yield(helikon.RunCompleted{})
		})
		inner, _ := workflow.NewParallel("inner", workflow.Step(leaf))
		middle, _ := workflow.NewLoop("middle", 1, workflow.Step(inner))
		outer, _ := workflow.NewSequential("outer", workflow.Step(middle))
		return outer
	}
	tests := []struct {
		maxDepth int
		wantErr  bool
	}{{1, true}, {2, false}}
	for _, tt := range tests {
		t.Run(fmt.Sprint("max depth ", tt.maxDepth), func(t *testing.T) {
			leafRan = false
			rc := helikon.NewRunContext(helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: tt.maxDepth}))
			_, err := helikon.Collect(nest().Run(context.Background(), rc, nil))
			if !tt.wantErr {
				// The loop runs out (nothing escalates) but everything ran.
				if !errors.Is(err, helikon.ErrMaxIterationsExceeded) || !leafRan {
					t.Fatalf("err = %v, leaf ran = %v", err, leafRan)
				}
				return
			}
			var ae *helikon.AgentError
			if !errors.Is(err, helikon.ErrMaxAgentDepthExceeded) || !errors.As(err, &ae) || ae.Agent != "inner" || leafRan {
				t.Fatalf("err = %v, leaf ran = %v; want the depth-2 workflow refused", err, leafRan)
			}
		})
	}
}
