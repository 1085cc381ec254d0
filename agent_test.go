package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func typesOf(evs []helikon.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		var h struct{ Type string }
		_ = json.Unmarshal(b, &h)
		out = append(out, h.Type)
	}
	return out
}

func mustAgent(t testing.TB, name string, m helikon.Model, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	a, err := helikon.NewAgent(name, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestNewAgent_RejectsBadConfiguration(t *testing.T) {
	m := mock.Scripted()
	other := mustAgent(t, "Billing Desk", m)
	clash := mustAgent(t, "billing-desk", m)
	tests := []struct {
		name string
		make func() (*helikon.LLMAgent, error)
		want string
	}{
		{"missing name", func() (*helikon.LLMAgent, error) { return helikon.NewAgent("", m) }, "name is required"},
		{"missing model", func() (*helikon.LLMAgent, error) { return helikon.NewAgent("a", nil) }, "model is required"},
		{"nil tool", func() (*helikon.LLMAgent, error) { return helikon.NewAgent("a", m, helikon.WithTools(nil)) }, "nil tool"},
		{"duplicate tool names", func() (*helikon.LLMAgent, error) {
			return helikon.NewAgent("a", m, helikon.WithTools(addTool, addTool))
		}, `two tools are named "add"`},
		{"colliding handoff slugs", func() (*helikon.LLMAgent, error) {
			return helikon.NewAgent("a", m, helikon.WithHandoffs(helikon.HandoffTo(other), helikon.HandoffTo(clash)))
		}, "collide on tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.make()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestNewTool_RejectsBadDefinitions(t *testing.T) {
	fn := func(*helikon.ToolContext, addArgs) (addOut, error) { return addOut{}, nil }
	if _, err := helikon.NewTool("bad name!", "", fn); err == nil {
		t.Error("a name with spaces was accepted")
	}
	if _, err := helikon.NewTool[addArgs, addOut]("ok", "", nil); err == nil {
		t.Error("a nil function was accepted")
	}
	if _, err := helikon.NewTool("scalar", "", func(*helikon.ToolContext, int) (int, error) { return 0, nil }); err == nil {
		t.Error("a non-object argument type was accepted")
	}
}

func TestRun_S1EventOrder(t *testing.T) {
	agent := mustAgent(t, "calc", mock.New(s1Scripts()), helikon.WithTools(addTool))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("40+2?")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item", "tool_output_item",
		"turn_started", "token_delta", "model_responded", "message_output", "run_completed"}
	if got := typesOf(res.Events); !slicesEqual(got, want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	out := res.Events[5].(helikon.ToolOutputItem).Item.Content[0].(helikon.ToolResultPart)
	if out.CallID != "call_1" || out.Content[0].(helikon.TextPart).Text != `{"sum":42}` {
		t.Errorf("tool output = %+v", out)
	}
	if res.FinalOutput != "sum is 42" || res.LastAgent != "calc" {
		t.Errorf("final = %q by %q", res.FinalOutput, res.LastAgent)
	}
	if res.Usage != (helikon.Usage{InputTokens: 20, OutputTokens: 10}) {
		t.Errorf("usage = %+v, want the sum of both turns", res.Usage)
	}
}

func TestRun_ModelSeesSystemConversationAndToolResults(t *testing.T) {
	m := mock.New(s1Scripts())
	agent := mustAgent(t, "calc", m, helikon.WithTools(addTool), helikon.WithInstructions("You add."))
	if _, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("40+2?"))); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	second := reqs[1].Messages
	roles := []helikon.Role{}
	for _, it := range second {
		roles = append(roles, it.Role)
	}
	want := []helikon.Role{helikon.RoleSystem, helikon.RoleUser, helikon.RoleAssistant, helikon.RoleTool}
	if fmt.Sprint(roles) != fmt.Sprint(want) {
		t.Fatalf("second request roles = %v, want %v", roles, want)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "add" || reqs[0].Tools[0].Parameters.Properties["a"].Description != "first addend" {
		t.Errorf("tool defs = %+v", reqs[0].Tools)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// barrierTool blocks every call until n calls are in flight at once, so a
// run that does not execute them concurrently times out.
func barrierTool(t *testing.T, n int32, maxSeen *atomic.Int32) helikon.Tool {
	var inflight atomic.Int32
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	arrived := int32(0)
	return helikon.MustTool("wait", "Wait for peers.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			old := maxSeen.Load()
			if cur <= old || maxSeen.CompareAndSwap(old, cur) {
				break
			}
		}
		mu.Lock()
		arrived++
		cond.Broadcast()
		for arrived < n && tc.Err() == nil {
			stop := context.AfterFunc(tc, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
			cond.Wait()
			stop()
		}
		mu.Unlock()
		return "ok", tc.Err()
	})
}

func fourCalls(name string) mock.Script {
	var cs []mock.Call
	for i := range 4 {
		cs = append(cs, mock.Call{ID: fmt.Sprintf("c%d", i), Name: name, Args: `{}`})
	}
	return mock.ToolCalls(cs...)
}

func TestRun_ToolCallsOfOneTurnRunConcurrently(t *testing.T) {
	var maxSeen atomic.Int32
	agent := mustAgent(t, "par", mock.Scripted(fourCalls("wait"), mock.Text("done")), helikon.WithTools(barrierTool(t, 4, &maxSeen)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("go")))
	if err != nil {
		t.Fatalf("run failed (calls did not run concurrently?): %v", err)
	}
	if maxSeen.Load() != 4 || res.FinalOutput != "done" {
		t.Fatalf("max in flight = %d, final %q", maxSeen.Load(), res.FinalOutput)
	}
}

// TestRun_ParallelToolCallLimitBoundsConcurrency pins
// RunConfig.ParallelToolCalls on both paths a tool round takes: inline
// on a run that cannot be cancelled, and on workers that join the round
// while it lasts on a cancellable one.
func TestRun_ParallelToolCallLimitBoundsConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"background", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"cancellable", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			var maxSeen, inflight atomic.Int32
			slow := helikon.MustTool("slow", "Count concurrency.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				cur := inflight.Add(1)
				defer inflight.Add(-1)
				for {
					old := maxSeen.Load()
					if cur <= old || maxSeen.CompareAndSwap(old, cur) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond) // widen the window for overlap; correctness does not depend on it
				return "ok", nil
			})
			calls := make([]mock.Call, 6)
			for i := range calls {
				calls[i] = mock.Call{ID: "c" + string(rune('1'+i)), Name: "slow", Args: `{}`}
			}
			agent := mustAgent(t, "par", mock.Scripted(mock.ToolCalls(calls...), mock.Text("done")),
				helikon.WithTools(slow), helikon.WithRunConfig(helikon.RunConfig{ParallelToolCalls: 2}))
			if _, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("go"))); err != nil {
				t.Fatal(err)
			}
			if n := maxSeen.Load(); n > 2 {
				t.Fatalf("max in flight = %d, limit 2", n)
			}
		})
	}
}

// settleGoroutines waits for the goroutine count to fall back to base.
func settleGoroutines(t *testing.T, base int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	n := runtime.Stack(buf, true)
	t.Fatalf("goroutines: %d, want <= %d\n%s", runtime.NumGoroutine(), base, buf[:n])
}

func TestRun_BreakingOutStopsTheRunAndLeaksNothing(t *testing.T) {
	base := runtime.NumGoroutine()
	m := mock.Scripted(fourCalls("add"), fourCalls("add"), mock.Deltas("a", "b", "c"))
	agent := mustAgent(t, "calc", m, helikon.WithTools(helikon.MustTool("add", "", func(*helikon.ToolContext, struct{}) (int, error) { return 1, nil })))
	seen := 0
	for ev := range agent.Run(context.Background(), nil, helikon.UserText("go")) {
		if _, ok := ev.(helikon.TokenDelta); ok {
			seen++
			break
		}
	}
	if seen != 1 {
		t.Fatalf("saw %d deltas", seen)
	}
	if m.Remaining() != 0 {
		t.Fatalf("scripts left: %d", m.Remaining())
	}
	settleGoroutines(t, base)
}

func TestRun_CancelledContextEndsWithCancelled(t *testing.T) {
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 4)
	block := helikon.MustTool("block", "Block until cancelled.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		started <- struct{}{}
		<-tc.Done()
		return "", tc.Err()
	})
	agent := mustAgent(t, "c", mock.Scripted(fourCalls("block"), mock.Text("never")), helikon.WithTools(block))
	go func() {
		for range 4 {
			<-started
		}
		cancel()
	}()
	res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Cancelled wrapping context.Canceled", err)
	}
	if last := res.Events[len(res.Events)-1]; fmt.Sprintf("%T", last) != "helikon.RunFailed" {
		t.Fatalf("last event %T", last)
	}
	settleGoroutines(t, base)
}

func TestRun_TimeoutWorksOnABareRun(t *testing.T) {
	block := helikon.MustTool("block", "Block until cancelled.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		<-tc.Done()
		return "", tc.Err()
	})
	agent := mustAgent(t, "t", mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "block", Args: "{}"}), mock.Text("never")),
		helikon.WithTools(block), helikon.WithRunConfig(helikon.RunConfig{Timeout: 20 * time.Millisecond}))
	_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want Cancelled wrapping DeadlineExceeded", err)
	}
}

func TestRun_RealTerminalEventWinsOverLateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnComplete := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.OnRunComplete {
			cancel()
		}
		return helikon.HookDecision{}
	})
	agent := mustAgent(t, "a", mock.Scripted(mock.Text("answer")), helikon.WithHooks(cancelOnComplete))
	res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("q")))
	if err != nil || res.FinalOutput != "answer" {
		t.Fatalf("late cancel changed the outcome: %v", err)
	}
}

func TestRun_ToolPanicBecomesToolErrorAndTheRunGoesOn(t *testing.T) {
	boom := helikon.MustTool("boom", "Panics.", func(*helikon.ToolContext, struct{}) (string, error) { panic("kaboom") })
	agent := mustAgent(t, "p", mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "boom", Args: "{}"}), mock.Text("recovered")), helikon.WithTools(boom))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "recovered" {
		t.Fatalf("run: %v %q", err, res.FinalOutput)
	}
	r := findResult(t, res.Events, "1")
	if !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, "tool panicked: kaboom") {
		t.Fatalf("result = %+v", r)
	}
}

func findResult(t *testing.T, evs []helikon.Event, callID string) helikon.ToolResultPart {
	t.Helper()
	for _, e := range evs {
		if o, ok := e.(helikon.ToolOutputItem); ok {
			if r := o.Item.Content[0].(helikon.ToolResultPart); r.CallID == callID {
				return r
			}
		}
	}
	t.Fatalf("no result for %s", callID)
	return helikon.ToolResultPart{}
}

func TestRun_InvalidArgsGoBackToTheModelOnce(t *testing.T) {
	bad := mock.ToolCalls(mock.Call{ID: "1", Name: "add", Args: `{"a":"forty","b":2}`})
	t.Run("first miss is fed back with the schema errors", func(t *testing.T) {
		m := mock.Scripted(bad, mock.ToolCalls(mock.Call{ID: "2", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("42"))
		agent := mustAgent(t, "calc", m, helikon.WithTools(addTool))
		res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
		if err != nil || res.FinalOutput != "42" {
			t.Fatalf("run: %v", err)
		}
		r := findResult(t, res.Events, "1")
		if msg := r.Content[0].(helikon.TextPart).Text; !r.IsError || !strings.Contains(msg, "invalid arguments") || !strings.Contains(msg, "/a") {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("second miss fails the run", func(t *testing.T) {
		agent := mustAgent(t, "calc", mock.Scripted(bad, bad, mock.Text("never")), helikon.WithTools(addTool))
		_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
		if !errors.Is(err, helikon.ErrInvalidArgs) {
			t.Fatalf("err = %v, want InvalidArgs", err)
		}
	})
}

func TestRun_UnknownToolIsReportedToTheModel(t *testing.T) {
	agent := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "nope", Args: "{}"}), mock.Text("ok")), helikon.WithTools(addTool))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, res.Events, "1"); !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, `unknown tool "nope"`) {
		t.Fatalf("result = %+v", r)
	}
}

func TestRun_ModelErrorsFailTheRunWithTheirKind(t *testing.T) {
	rl := &helikon.ModelError{Kind: helikon.ModelRateLimited, Provider: "mock", RetryAfter: time.Second}
	tests := []struct {
		name   string
		script []mock.Script
		want   error
	}{
		{"rate limited", []mock.Script{mock.Fail(rl)}, helikon.ErrRateLimited},
		{"script exhausted", nil, helikon.ErrModelOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := mustAgent(t, "a", mock.New(tt.script))
			_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
			var ae *helikon.AgentError
			if !errors.Is(err, tt.want) || !errors.As(err, &ae) || ae.Kind != helikon.KindModel {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestRun_DynamicInstructionsReadRunState(t *testing.T) {
	m := mock.Scripted(mock.Text("ok"))
	agent := mustAgent(t, "writer", m, helikon.WithInstructionsFunc(func(ctx context.Context, rc *helikon.RunContext) (string, error) {
		return "Notes: " + rc.State().String("researcher"), nil
	}))
	rc := helikon.NewRunContext()
	rc.State().Set("researcher", "prices rose 3%")
	if _, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("write"))); err != nil {
		t.Fatal(err)
	}
	if got := m.Requests()[0].Messages[0].Text(); got != "Notes: prices rose 3%" {
		t.Fatalf("system = %q", got)
	}
}

func TestRun_InstructionErrorFailsTheRun(t *testing.T) {
	agent := mustAgent(t, "a", mock.Scripted(mock.Text("x")), helikon.WithInstructionsFunc(func(context.Context, *helikon.RunContext) (string, error) {
		return "", errors.New("db down")
	}))
	_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("q")))
	if err == nil || !strings.Contains(err.Error(), "db down") {
		t.Fatalf("err = %v", err)
	}
}

func TestRun_MaxAgentDepthIsCheckedAtStart(t *testing.T) {
	agent := mustAgent(t, "deep", mock.Scripted(mock.Text("x")), helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 1}))
	rc := helikon.Ephemeral().Child().Child()
	_, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("q")))
	if !errors.Is(err, helikon.ErrMaxAgentDepthExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestRun_MaxTurnsExceeded(t *testing.T) {
	loop := mock.ToolCalls(mock.Call{ID: "1", Name: "add", Args: `{"a":1,"b":1}`})
	agent := mustAgent(t, "a", mock.Scripted(loop, loop, loop), helikon.WithTools(addTool), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 2}))
	_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("q")))
	if !errors.Is(err, helikon.ErrMaxTurnsExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestRun_UserValueReachesTools(t *testing.T) {
	type tenant struct{ ID string }
	who := helikon.MustTool("whoami", "Tenant id.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		tn, ok := helikon.User[*tenant](tc)
		if !ok {
			return "", errors.New("no tenant")
		}
		return tn.ID, nil
	})
	agent := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "whoami", Args: "{}"}), mock.Text("ok")), helikon.WithTools(who))
	res, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(helikon.WithUser(&tenant{ID: "t-42"})), helikon.UserText("q")))
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, res.Events, "1"); r.Content[0].(helikon.TextPart).Text != `"t-42"` {
		t.Fatalf("result = %+v", r)
	}
}

func TestRun_ReasoningAndInterleavedCallsAggregate(t *testing.T) {
	m := mock.Scripted(mock.Events(
		helikon.ReasoningDelta{Text: "think "}, helikon.ReasoningDelta{Text: "hard"}, helikon.ReasoningDelta{Signature: "sig"},
		helikon.ToolCallDelta{CallID: "x", Name: "add", ArgsDelta: `{"a":`},
		helikon.ToolCallDelta{CallID: "y", Name: "add", ArgsDelta: `{"a":1,`},
		helikon.ToolCallDelta{CallID: "x", ArgsDelta: `2,"b":3}`},
		helikon.ToolCallDelta{CallID: "y", ArgsDelta: `"b":1}`},
		helikon.Finish{Reason: helikon.FinishToolCalls},
	), mock.Text("done"))
	agent := mustAgent(t, "a", m, helikon.WithTools(addTool))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("q")))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := findResult(t, res.Events, "x"), findResult(t, res.Events, "y"); a.Content[0].(helikon.TextPart).Text != `{"sum":5}` || b.Content[0].(helikon.TextPart).Text != `{"sum":2}` {
		t.Fatalf("results %+v %+v", a, b)
	}
	asst := m.Requests()[1].Messages[1]
	if r, ok := asst.Content[0].(helikon.ReasoningPart); !ok || r.Text != "think hard" || r.Signature != "sig" {
		t.Fatalf("assistant content = %+v", asst.Content)
	}
}

func TestRun_PanickingHookFailsOnlyItsCall(t *testing.T) {
	boomOnFirst := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.PreToolUse && ev.CallID == "c1" {
			panic("hook bug")
		}
		return helikon.HookDecision{}
	})
	m := mock.Scripted(mock.ToolCalls(
		mock.Call{ID: "c0", Name: "add", Args: `{"a":1,"b":1}`},
		mock.Call{ID: "c1", Name: "add", Args: `{"a":2,"b":2}`},
	), mock.Text("done"))
	agent := mustAgent(t, "a", m, helikon.WithTools(addTool), helikon.WithHooks(boomOnFirst))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("run: %v", err)
	}
	if r := findResult(t, res.Events, "c1"); !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, "panic: hook bug") {
		t.Fatalf("c1 = %+v", r)
	}
	if r := findResult(t, res.Events, "c0"); r.IsError {
		t.Fatalf("c0 failed too: %+v", r)
	}
}

func TestRun_PanickingGuardrailTripsInsteadOfCrashing(t *testing.T) {
	bad := helikon.GuardrailFunc(func(context.Context, *helikon.RunContext, helikon.GuardrailInput) (*helikon.Tripwire, error) {
		panic("guardrail bug")
	})
	for _, blocking := range []bool{false, true} {
		opts := []helikon.AgentOption{helikon.WithInputGuardrails(bad)}
		if blocking {
			opts = append(opts, helikon.WithBlockingInputGuardrails())
		}
		agent := mustAgent(t, "a", mock.Scripted(mock.Text("hi")), opts...)
		_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("q")))
		if !errors.Is(err, helikon.ErrGuardrailTripped) || !strings.Contains(err.Error(), "guardrail panicked") {
			t.Fatalf("blocking=%v: err = %v", blocking, err)
		}
	}
}
