package workflow_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/workflow"
	"runtime"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func toolNames(req *helikon.ModelRequest) []string {
	var names []string
	for _, td := range req.Tools {
		names = append(names, td.Name)
	}
	slices.Sort(names)
	return names
}

func TestSwarm_FullMeshHandoffsAndFirstToAnswerWins(t *testing.T) {
	triageModel := mock.Scripted(transfer("budgeting"))
	budgetingModel := mock.Scripted(transfer("investing"))
	investingModel := mock.Scripted(mock.Text("Invest the surplus in an index fund."))
	triage := mustAgent(t, "triage", triageModel)
	budgeting := mustAgent(t, "budgeting", budgetingModel, helikon.WithDescription("Budgets."))
	investing := mustAgent(t, "investing", investingModel, helikon.WithDescription("Investments."))
	swarm, err := workflow.NewSwarm("support", workflow.Members(triage, budgeting, investing), workflow.WithMaxHandoffs(6))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("I have $500 left each month.")))
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != "Invest the surplus in an index fund." || res.LastAgent != "investing" {
		t.Fatalf("final = %q by %q", res.FinalOutput, res.LastAgent)
	}
	for m, want := range map[*mock.Model][]string{
		triageModel:    {"transfer_to_budgeting", "transfer_to_investing"},
		budgetingModel: {"transfer_to_investing", "transfer_to_triage"},
		investingModel: {"transfer_to_budgeting", "transfer_to_triage"},
	} {
		if got := toolNames(m.Requests()[0]); !slicesEqual(got, want) {
			t.Errorf("member tools = %v, want %v", got, want)
		}
	}
	if d := triageModel.Requests()[0].Tools; d[0].Description != "Budgets." {
		t.Errorf("transfer tool described %q, want the member's description", d[0].Description)
	}
	var flow []string
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.HandoffItem:
			flow = append(flow, e.From+">"+e.To)
		case helikon.AgentUpdated:
			flow = append(flow, e.Agent)
		}
	}
	if want := []string{"triage", "triage>budgeting", "budgeting", "budgeting>investing", "investing"}; !slicesEqual(flow, want) {
		t.Errorf("flow = %v, want %v", flow, want)
	}
	if s := res.Events[0].(helikon.RunStarted); s.Agent != "support" {
		t.Errorf("run started by %q", s.Agent)
	}
	if countEvents[helikon.RunStarted](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 1 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	if res.Usage != (helikon.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Errorf("usage = %+v, want all three members", res.Usage)
	}
	// The agents passed in were not modified.
	if len(triage.Handoffs()) != 0 {
		t.Error("NewSwarm modified a member")
	}
}

func TestSwarm_EntryDefaultsToTheFirstMember(t *testing.T) {
	tests := []struct {
		name  string
		entry []workflow.SwarmOption
		want  string
	}{
		{"default", nil, "first answer"},
		{"named", []workflow.SwarmOption{workflow.WithEntry("second")}, "second answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]workflow.SwarmOption{workflow.Members(answerer(t, "first", "first answer"), answerer(t, "second", "second answer"))}, tt.entry...)
			swarm, err := workflow.NewSwarm("s", opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("hi")))
			if err != nil || res.FinalOutput != tt.want {
				t.Fatalf("run: %v, %q", err, res.FinalOutput)
			}
		})
	}
}

// pingPong is a two-member swarm whose members hand off to each other
// forever (as far as their scripts go).
func pingPong(t *testing.T, opts ...workflow.SwarmOption) (*workflow.SwarmAgent, *mock.Model, *mock.Model) {
	var ping, pong []mock.Script
	for range 10 {
		ping = append(ping, transfer("pong"))
		pong = append(pong, transfer("ping"))
	}
	pingModel, pongModel := mock.Scripted(ping...), mock.Scripted(pong...)
	swarm, err := workflow.NewSwarm("pp", append([]workflow.SwarmOption{workflow.Members(mustAgent(t, "ping", pingModel), mustAgent(t, "pong", pongModel))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return swarm, pingModel, pongModel
}

func TestSwarm_MaxHandoffsCancelsTheRun(t *testing.T) {
	base := runtime.NumGoroutine()
	swarm, pingModel, pongModel := pingPong(t, workflow.WithMaxHandoffs(3))
	res, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("go")))
	var ae *helikon.AgentError
	if !errors.Is(err, helikon.ErrMaxHandoffsExceeded) || !errors.As(err, &ae) || ae.Agent != "pp" {
		t.Fatalf("err = %v, want MaxHandoffsExceeded by the swarm", err)
	}
	if n := countEvents[helikon.HandoffItem](res.Events); n != 3 {
		t.Errorf("%d handoffs forwarded, want the 3 within budget", n)
	}
	// The fourth handoff was decided by the fourth turn; no member ran after it.
	if n := len(pingModel.Requests()) + len(pongModel.Requests()); n != 4 {
		t.Errorf("%d model turns, want 4", n)
	}
	if _, last := res.Events[len(res.Events)-1].(helikon.RunFailed); !last || countEvents[helikon.RunFailed](res.Events) != 1 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	settleGoroutines(t, base)
}

func TestSwarm_ZeroHandoffBudgetForbidsAnyHandoff(t *testing.T) {
	swarm, _, _ := pingPong(t, workflow.WithMaxHandoffs(0))
	_, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrMaxHandoffsExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestSwarm_PingPongWithoutBudgetHitsMaxAgentDepth(t *testing.T) {
	swarm, pingModel, pongModel := pingPong(t)
	rc := helikon.NewRunContext(helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 4}))
	_, err := helikon.Collect(swarm.Run(context.Background(), rc, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrMaxAgentDepthExceeded) {
		t.Fatalf("err = %v", err)
	}
	// The swarm is depth 0, its entry 1, each handoff one more: members at
	// depths 1..4 ran a turn each, the one at depth 5 was refused.
	if n := len(pingModel.Requests()) + len(pongModel.Requests()); n != 4 {
		t.Errorf("%d model turns, want 4", n)
	}
}

func TestSwarm_KeepsMembersOwnHandoffs(t *testing.T) {
	human := answerer(t, "human", "a human answers")
	solo := mustAgent(t, "solo", mock.Scripted(transfer("human")), helikon.WithHandoffs(helikon.HandoffTo(human)))
	swarm, err := workflow.NewSwarm("s", workflow.Members(solo, answerer(t, "peer", "x")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("help")))
	if err != nil || res.FinalOutput != "a human answers" {
		t.Fatalf("run: %v, %q", err, res.FinalOutput)
	}
}

func TestSwarm_BuildErrors(t *testing.T) {
	a, b := answerer(t, "alpha", "x"), answerer(t, "beta", "y")
	tests := []struct {
		name string
		opts []workflow.SwarmOption
		want error
	}{
		{"empty pool", nil, workflow.ErrNoSubAgents},
		{"duplicate names", []workflow.SwarmOption{workflow.Members(a, answerer(t, "alpha", "z"))}, helikon.ErrDuplicateKey},
		{"names sharing a transfer tool", []workflow.SwarmOption{workflow.Members(answerer(t, "Alpha One", "x"), answerer(t, "alpha-one", "y"))}, helikon.ErrDuplicateKey},
		{"unknown entry", []workflow.SwarmOption{workflow.Members(a, b), workflow.WithEntry("gamma")}, workflow.ErrUnknownKey},
		{"nil member", []workflow.SwarmOption{workflow.Members(a, nil)}, helikon.ErrInvalidOption},
		{"negative budget", []workflow.SwarmOption{workflow.Members(a), workflow.WithMaxHandoffs(-1)}, helikon.ErrInvalidOption},
		{"member already hands off to a peer's name", []workflow.SwarmOption{workflow.Members(
			mustAgent(t, "alpha", mock.Scripted(), helikon.WithHandoffs(helikon.HandoffTo(answerer(t, "beta", "other beta")))), b)}, helikon.ErrDuplicateKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workflow.NewSwarm("s", tt.opts...)
			var be *helikon.BuildError
			if !errors.Is(err, tt.want) || !errors.As(err, &be) || be.Agent != "s" {
				t.Fatalf("err = %v, want a BuildError of s matching %v", err, tt.want)
			}
		})
	}
}
