package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestPrices_CostBillsCachedAndCacheWriteTokensAtTheirPrices(t *testing.T) {
	table := helikon.Prices{
		"full":  {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
		"plain": {Input: 2, Output: 8},
	}
	for _, tc := range []struct {
		name, model string
		u           helikon.Usage
		want        float64
		ok          bool
	}{
		{"input and output", "plain", helikon.Usage{InputTokens: 1_000_000, OutputTokens: 500_000}, 2 + 4, true},
		{"cached reads at the cached price", "full", helikon.Usage{InputTokens: 1_000_000, CachedInputTokens: 600_000}, 0.4*3 + 0.6*0.3, true},
		{"cache writes at the write price", "full", helikon.Usage{InputTokens: 1_000_000, CacheWriteTokens: 1_000_000}, 3.75, true},
		{"no cached price means the input price", "plain", helikon.Usage{InputTokens: 1_000_000, CachedInputTokens: 1_000_000}, 2, true},
		{"unknown model", "other", helikon.Usage{InputTokens: 10}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := table.Cost(tc.model, tc.u)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("Cost = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// turnUsage is what every scripted turn below reports.
var turnUsage = helikon.Usage{InputTokens: 10, OutputTokens: 5, CachedInputTokens: 4, ReasoningTokens: 2}

func withUsage(s mock.Script) mock.Script {
	evs := make([]helikon.ModelEvent, 0, len(s.Events))
	for _, ev := range s.Events {
		if _, ok := ev.(helikon.Usage); ok {
			ev = turnUsage
		}
		evs = append(evs, ev)
	}
	return mock.Script{Events: evs, Err: s.Err}
}

type query struct {
	Q string `json:"q" jsonschema:"the question"`
}

// researchTool runs a one-turn sub-agent, the way an agent used as a tool
// does: on a sub-run context of the caller.
func researchTool(t *testing.T) helikon.Tool {
	return helikon.MustTool("research", "Ask the researcher.", func(tc *helikon.ToolContext, in query) (string, error) {
		sub, err := helikon.NewAgent("researcher", mock.Scripted(withUsage(mock.Text("found it"))))
		if err != nil {
			return "", err
		}
		res, err := helikon.Collect(sub.Run(tc, tc.SubRunContext(), helikon.UserText(in.Q)))
		if err != nil {
			return "", err
		}
		return res.FinalOutput, nil
	})
}

func TestUsage_SumsTurnsHandoffsAndSubAgents(t *testing.T) {
	times := func(n int64) helikon.Usage {
		return helikon.Usage{InputTokens: 10 * n, OutputTokens: 5 * n, CachedInputTokens: 4 * n, ReasoningTokens: 2 * n}
	}
	// The specialist researches once (a sub-agent turn), then answers: two
	// turns of its own. Scripted models are consumed, so build one per run.
	specialist := func() helikon.Agent {
		a, err := helikon.NewAgent("specialist", mock.Scripted(
			withUsage(mock.ToolCalls(mock.Call{ID: "r1", Name: "research", Args: `{"q":"x"}`})),
			withUsage(mock.Text("done")),
		), helikon.WithTools(researchTool(t)))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		name  string
		agent func() helikon.Agent
		want  helikon.Usage
	}{
		{"own turns and a sub-agent", specialist, times(3)},
		{"through a handoff", func() helikon.Agent {
			triage, err := helikon.NewAgent("triage", mock.Scripted(
				withUsage(mock.ToolCalls(mock.Call{ID: "h", Name: "transfer_to_specialist"})),
			), helikon.WithHandoffs(helikon.HandoffTo(specialist())))
			if err != nil {
				t.Fatal(err)
			}
			return triage
		}, times(4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := helikon.Collect(tc.agent().Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			if res.Usage != tc.want {
				t.Fatalf("usage %+v, want %+v", res.Usage, tc.want)
			}
		})
	}
}

func TestBudget_TurnCrossingTokenBudgetFailsRunWithTypedErrorAndUsage(t *testing.T) {
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), // 15 tokens
		mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":1,"b":2}`}), // 30: crossed
		mock.Text("never reached"),
	)
	agent, _ := helikon.NewAgent("calc", model, helikon.WithTools(addTool))
	rc := helikon.NewRunContext(helikon.WithBudget(helikon.Budget{MaxTokens: 20}))
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrBudgetExceeded) {
		t.Fatalf("err = %v, want ErrBudgetExceeded", err)
	}
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindBudgetExceeded || ae.Agent != "calc" {
		t.Fatalf("err = %#v", err)
	}
	if res.Usage.Total() != 30 {
		t.Fatalf("usage %+v, want 30 tokens", res.Usage)
	}
	for _, ev := range res.Events {
		if o, ok := ev.(helikon.ToolOutputItem); ok && o.Item.Content[0].(helikon.ToolResultPart).CallID == "c2" {
			t.Fatal("the call of the turn that crossed the budget ran")
		}
	}
}

func TestBudget_SpentBudgetFailsBeforeCallingTheModelAgain(t *testing.T) {
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), // 15 tokens: all of it
		mock.Text("never reached"),
	)
	agent, _ := helikon.NewAgent("calc", model, helikon.WithTools(addTool))
	rc := helikon.NewRunContext(helikon.WithBudget(helikon.Budget{MaxTokens: 15}))
	_, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrBudgetExceeded) {
		t.Fatalf("err = %v, want ErrBudgetExceeded", err)
	}
	if n := len(model.Requests()); n != 1 {
		t.Fatalf("model called %d times, want 1", n)
	}
}

func TestBudget_CostBudgetCountsSubAgentTurns(t *testing.T) {
	// Each turn costs 10·1 + 5·2 = 20 per million. The parent's first turn
	// and the sub-agent's turn reach 40; the parent's second turn crosses 50.
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "r1", Name: "research", Args: `{"q":"x"}`}),
		mock.Text("answer"),
	)
	agent, _ := helikon.NewAgent("lead", model, helikon.WithTools(researchTool(t)))
	rc := helikon.NewRunContext(
		helikon.WithPrices(helikon.Prices{"mock": {Input: 1, Output: 2}}),
		helikon.WithBudget(helikon.Budget{MaxCost: 50 / 1e6}),
	)
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrBudgetExceeded) {
		t.Fatalf("err = %v, want ErrBudgetExceeded", err)
	}
	if want := 60 / 1e6; math.Abs(res.Usage.Cost-want) > 1e-12 {
		t.Fatalf("cost %v, want %v", res.Usage.Cost, want)
	}
}

func TestRunFailed_JSONCarriesUsage(t *testing.T) {
	in := helikon.RunFailed{Err: helikon.ErrBudgetExceeded, Usage: helikon.Usage{InputTokens: 7, Cost: 0.5}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := helikon.UnmarshalEvent(data)
	if err != nil {
		t.Fatal(err)
	}
	out := ev.(helikon.RunFailed)
	if out.Usage != in.Usage || !errors.Is(out.Err, helikon.ErrBudgetExceeded) {
		t.Fatalf("round trip: %s -> %+v", data, out)
	}
}

func TestUsage_ResumedRunCountsTurnsBeforeTheCheckpoint(t *testing.T) {
	var saved *helikon.Checkpoint
	cfg := helikon.RunConfig{OnCheckpoint: func(ctx context.Context, cp *helikon.Checkpoint) error {
		if s, ok := cp.State.(helikon.CallingModel); ok && s.Turn == 2 {
			saved = cp
			return errors.New("crash")
		}
		return nil
	}}
	first, _ := helikon.NewAgent("calc", mock.New(s1Scripts()), helikon.WithTools(addTool), helikon.WithRunConfig(cfg))
	if _, err := helikon.Collect(first.Run(context.Background(), nil, helikon.UserText("go"))); err == nil || saved == nil {
		t.Fatalf("no checkpoint at turn 2 (err %v)", err)
	}
	second, _ := helikon.NewAgent("calc", mock.Scripted(mock.Text("sum is 42")), helikon.WithTools(addTool))
	res, err := helikon.Collect(second.Resume(context.Background(), nil, saved))
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.Total() != 30 {
		t.Fatalf("usage %+v, want both turns' 30 tokens", res.Usage)
	}
}

func TestUsage_AddSaturatesRatherThanWraps(t *testing.T) {
	const maxInt = math.MaxInt64
	for _, tc := range []struct {
		name    string
		a, b    helikon.Usage
		want    helikon.Usage
		wantSum int64
	}{
		{"small counts add", helikon.Usage{InputTokens: 2, OutputTokens: 3}, helikon.Usage{InputTokens: 5, ReasoningTokens: 1},
			helikon.Usage{InputTokens: 7, OutputTokens: 3, ReasoningTokens: 1}, 10},
		{"a sum past the top stays there", helikon.Usage{InputTokens: maxInt - 1, CacheWriteTokens: maxInt}, helikon.Usage{InputTokens: 5, CacheWriteTokens: 1},
			helikon.Usage{InputTokens: maxInt, CacheWriteTokens: maxInt}, maxInt},
		{"a total past the top stays there", helikon.Usage{InputTokens: maxInt / 2, OutputTokens: maxInt/2 + 5}, helikon.Usage{},
			helikon.Usage{InputTokens: maxInt / 2, OutputTokens: maxInt/2 + 5}, maxInt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.a.Add(tc.b)
			if got != tc.want {
				t.Fatalf("Add = %+v, want %+v", got, tc.want)
			}
			if got.Total() != tc.wantSum {
				t.Fatalf("Total = %d, want %d", got.Total(), tc.wantSum)
			}
		})
	}
}

// A model (a compatible server, a proxy between) reporting usage that no
// turn can have spent must not take from what the run's other turns spent,
// nor wrap the run's sum below a budget.
func TestBudget_AModelsUsageCannotUnspendTheBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		usage []helikon.Usage // the turn's usage events
		want  error
	}{
		{"negative input tokens", []helikon.Usage{{InputTokens: -1000}}, helikon.ErrInvalidUsage},
		{"negative output tokens", []helikon.Usage{{OutputTokens: -1}}, helikon.ErrInvalidUsage},
		{"negative cached tokens", []helikon.Usage{{InputTokens: 10, CachedInputTokens: -10}}, helikon.ErrInvalidUsage},
		{"negative reasoning tokens", []helikon.Usage{{ReasoningTokens: -1}}, helikon.ErrInvalidUsage},
		{"negative cost", []helikon.Usage{{Cost: -0.5}}, helikon.ErrInvalidUsage},
		{"cost not a number", []helikon.Usage{{Cost: math.NaN()}}, helikon.ErrInvalidUsage},
		{"infinite cost", []helikon.Usage{{Cost: math.Inf(1)}}, helikon.ErrInvalidUsage},
		{"counts whose sum would wrap", []helikon.Usage{{InputTokens: math.MaxInt64 / 2}, {InputTokens: math.MaxInt64/2 + 10}}, helikon.ErrBudgetExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := []helikon.ModelEvent{helikon.TokenDelta{Text: "hi"}}
			for _, u := range tc.usage {
				evs = append(evs, u)
			}
			evs = append(evs, helikon.Finish{Reason: helikon.FinishStop})
			agent, err := helikon.NewAgent("a", mock.Scripted(mock.Events(evs...)))
			if err != nil {
				t.Fatal(err)
			}
			rc := helikon.NewRunContext(helikon.WithBudget(helikon.Budget{MaxTokens: 100, MaxCost: 1}))
			_, err = helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
