package helikon_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slug"
	"github.com/paigasus/helikon/mock"
)

// transfer is a model turn that hands off to the agent named target.
func transfer(target string) mock.Script {
	return mock.ToolCalls(mock.Call{ID: "h_" + slug.Make(target), Name: "transfer_to_" + slug.Make(target), Args: `{}`})
}

// answerer is an agent that answers text in one turn.
func answerer(t testing.TB, name, text string, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	return mustAgent(t, name, mock.Scripted(mock.Text(text)), opts...)
}

func countEvents[E helikon.Event](evs []helikon.Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(E); ok {
			n++
		}
	}
	return n
}

func TestHandoff_EventOrderUsageAndFinalOutput(t *testing.T) {
	investing := answerer(t, "investing specialist", "Start with an index fund.",
		helikon.WithDescription("Answers questions about investing."))
	triage := mustAgent(t, "triage", mock.Scripted(transfer("investing specialist")),
		helikon.WithHandoffs(helikon.HandoffTo(investing)))
	res, err := helikon.Collect(triage.Run(context.Background(), nil, helikon.UserText("How do I invest $5,000?")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item", "tool_output_item",
		"handoff_item", "agent_updated", "turn_started", "token_delta", "model_responded", "message_output", "run_completed"}
	if got := typesOf(res.Events); !slicesEqual(got, want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	if h := res.Events[6].(helikon.HandoffItem); h.From != "triage" || h.To != "investing specialist" {
		t.Errorf("handoff = %+v", h)
	}
	if u := res.Events[7].(helikon.AgentUpdated); u.Agent != "investing specialist" {
		t.Errorf("agent updated = %+v", u)
	}
	if res.FinalOutput != "Start with an index fund." || res.LastAgent != "investing specialist" {
		t.Errorf("final = %q by %q", res.FinalOutput, res.LastAgent)
	}
	// One turn each at 10 in + 5 out.
	if res.Usage != (helikon.Usage{InputTokens: 20, OutputTokens: 10}) {
		t.Errorf("usage = %+v, want parent + target", res.Usage)
	}
}

func TestHandoff_TransferToolIsNamedBySlugAndDescribedByTarget(t *testing.T) {
	m := mock.Scripted(mock.Text("I answer myself."))
	budgeting := answerer(t, "Budgeting -- Specialist!", "x", helikon.WithDescription("Answers budget questions."))
	plain := answerer(t, "plain", "x")
	triage := mustAgent(t, "triage", m, helikon.WithHandoffs(helikon.HandoffTo(budgeting), helikon.HandoffTo(plain),
		helikon.Handoff{Agent: answerer(t, "other", "x"), ToolName: "escalate_to_human", Description: "Ask a human."}))
	if _, err := helikon.Collect(triage.Run(context.Background(), nil, helikon.UserText("hi"))); err != nil {
		t.Fatal(err)
	}
	tools := m.Requests()[0].Tools
	got := map[string]string{}
	for _, td := range tools {
		got[td.Name] = td.Description
	}
	want := map[string]string{
		"transfer_to_budgeting_specialist": "Answers budget questions.",
		"transfer_to_plain":                "Transfer the conversation to plain.",
		"escalate_to_human":                "Ask a human.",
	}
	if len(got) != len(want) {
		t.Fatalf("tools = %v", got)
	}
	for name, desc := range want {
		if got[name] != desc {
			t.Errorf("tool %q described %q, want %q", name, got[name], desc)
		}
	}
}

func TestHandoff_CollidingSlugsRejectedBeforeFirstModelCall(t *testing.T) {
	m := mock.Scripted(mock.Text("never"))
	_, err := helikon.NewAgent("triage", m, helikon.WithHandoffs(
		helikon.HandoffTo(answerer(t, "Investing Specialist", "x")),
		helikon.HandoffTo(answerer(t, "investing-specialist", "x"))))
	var be *helikon.BuildError
	if !errors.Is(err, helikon.ErrDuplicateKey) || !errors.As(err, &be) || be.Keys[0] != "transfer_to_investing_specialist" {
		t.Fatalf("err = %v, want a BuildError for the shared transfer tool", err)
	}
	if len(m.Requests()) != 0 {
		t.Fatal("the model was called")
	}
}

func TestHandoff_TranscriptThreadsThroughToTheTarget(t *testing.T) {
	targetModel := mock.Scripted(mock.Text("done"))
	target := mustAgent(t, "target", targetModel, helikon.WithInstructions("You are the target."))
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")),
		helikon.WithInstructions("You route."), helikon.WithHandoffs(helikon.HandoffTo(target)))
	if _, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("question"))); err != nil {
		t.Fatal(err)
	}
	msgs := targetModel.Requests()[0].Messages
	var roles []string
	for _, it := range msgs {
		roles = append(roles, string(it.Role))
	}
	// Its own instructions, never the parent's; then the whole transcript.
	if want := "system,user,assistant,tool"; strings.Join(roles, ",") != want {
		t.Fatalf("target saw roles %v, want %s", roles, want)
	}
	if msgs[0].Text() != "You are the target." || msgs[1].Text() != "question" {
		t.Errorf("target saw %q then %q", msgs[0].Text(), msgs[1].Text())
	}
}

func TestHandoff_InputFilterRewritesWhatTheTargetSees(t *testing.T) {
	targetModel := mock.Scripted(mock.Text("done"))
	target := mustAgent(t, "target", targetModel)
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")),
		helikon.WithHandoffs(helikon.Handoff{Agent: target, InputFilter: helikon.DropToolItems}))
	res, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("question")))
	if err != nil {
		t.Fatal(err)
	}
	msgs := targetModel.Requests()[0].Messages
	if len(msgs) != 1 || msgs[0].Role != helikon.RoleUser {
		t.Fatalf("target saw %d items (%+v), want only the user's message", len(msgs), msgs)
	}
	// The parent's own stream still reports the transfer call and result.
	if countEvents[helikon.ToolOutputItem](res.Events) != 1 {
		t.Error("the filter changed the parent's stream")
	}
}

func TestHandoff_SiblingCallsOfTheTransferTurnAreNotRun(t *testing.T) {
	ran := false
	side := helikon.MustTool("side", "A side effect.", func(*helikon.ToolContext, struct{}) (string, error) {
		ran = true
		return "ran", nil
	})
	target := answerer(t, "target", "done")
	parent := mustAgent(t, "parent", mock.Scripted(mock.ToolCalls(
		mock.Call{ID: "s", Name: "side", Args: `{}`},
		mock.Call{ID: "h", Name: "transfer_to_target", Args: `{}`})),
		helikon.WithTools(side), helikon.WithHandoffs(helikon.HandoffTo(target)))
	res, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("a sibling of the transfer call ran")
	}
	if r := findResult(t, res.Events, "s"); !r.IsError {
		t.Errorf("sibling result = %+v, want an error result", r)
	}
}

func TestHandoff_ChainIsBoundedByMaxAgentDepth(t *testing.T) {
	// a → b → c → d; d would run at depth 3.
	chain := func(opts ...helikon.AgentOption) *helikon.LLMAgent {
		d := answerer(t, "d", "deep answer")
		c := mustAgent(t, "c", mock.Scripted(transfer("d")), helikon.WithHandoffs(helikon.HandoffTo(d)))
		b := mustAgent(t, "b", mock.Scripted(transfer("c")), helikon.WithHandoffs(helikon.HandoffTo(c)))
		return mustAgent(t, "a", mock.Scripted(transfer("b")), append(opts, helikon.WithHandoffs(helikon.HandoffTo(b)))...)
	}
	tests := []struct {
		name    string
		agent   *helikon.LLMAgent
		rc      *helikon.RunContext
		wantErr bool
	}{
		{"default depth admits the chain", chain(), nil, false},
		{"run config bound fails it", chain(), helikon.NewRunContext(helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 2})), true},
		{"first agent's own bound holds along the chain", chain(helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 2})), nil, true},
		{"bound equal to the depth admits it", chain(helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 3})), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := helikon.Collect(tt.agent.Run(context.Background(), tt.rc, helikon.UserText("go")))
			if !tt.wantErr {
				if err != nil || res.FinalOutput != "deep answer" {
					t.Fatalf("run: %v, %q", err, res.FinalOutput)
				}
				return
			}
			var ae *helikon.AgentError
			if !errors.Is(err, helikon.ErrMaxAgentDepthExceeded) || !errors.As(err, &ae) || ae.Agent != "d" {
				t.Fatalf("err = %v, want MaxAgentDepthExceeded at d", err)
			}
			if n := countEvents[helikon.RunFailed](res.Events); n != 1 {
				t.Errorf("%d RunFailed events", n)
			}
		})
	}
}

func TestHandoff_TargetKeepsItsOwnTurnBudget(t *testing.T) {
	// The parent allows many turns; the target allows one, and its own
	// budget must hold after the handoff.
	loopTool := helikon.MustTool("again", "Try again.", func(*helikon.ToolContext, struct{}) (string, error) { return "", nil })
	target := mustAgent(t, "target", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "1", Name: "again", Args: `{}`}), mock.Text("late")),
		helikon.WithTools(loopTool), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 1}))
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")),
		helikon.WithHandoffs(helikon.HandoffTo(target)), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 10}))
	_, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("go")))
	var ae *helikon.AgentError
	if !errors.Is(err, helikon.ErrMaxTurnsExceeded) || !errors.As(err, &ae) || ae.Agent != "target" {
		t.Fatalf("err = %v, want the target's MaxTurnsExceeded", err)
	}
}

func TestHandoff_TargetFailureFailsTheRun(t *testing.T) {
	target := mustAgent(t, "target", mock.Scripted(mock.Fail(&helikon.ModelError{Kind: helikon.ModelUnavailable, Message: "boom"})))
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")), helikon.WithHandoffs(helikon.HandoffTo(target)))
	res, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("go")))
	var me *helikon.ModelError
	if !errors.As(err, &me) || me.Kind != helikon.ModelUnavailable {
		t.Fatalf("err = %v, want the target's model error", err)
	}
	if countEvents[helikon.RunFailed](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 0 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
}

func TestHandoff_DeniedByHookIsNeverReportedAsAHandoff(t *testing.T) {
	deny := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.OnHandoff {
			return helikon.HookDecision{Action: helikon.HookDeny, Reason: "no transfers today"}
		}
		return helikon.HookDecision{}
	})
	targetModel := mock.Scripted(mock.Text("never"))
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")),
		helikon.WithHandoffs(helikon.HandoffTo(mustAgent(t, "target", targetModel))), helikon.WithHooks(deny))
	res, err := helikon.Collect(parent.Run(context.Background(), nil, helikon.UserText("go")))
	if err == nil || !strings.Contains(err.Error(), "no transfers today") {
		t.Fatalf("err = %v", err)
	}
	if countEvents[helikon.HandoffItem](res.Events) != 0 || countEvents[helikon.AgentUpdated](res.Events) != 0 {
		t.Errorf("a denied handoff was reported: %v", typesOf(res.Events))
	}
	if len(targetModel.Requests()) != 0 {
		t.Error("the target ran")
	}
}

func TestHandoff_BreakingOutDuringTheTargetLeaksNothing(t *testing.T) {
	base := runtime.NumGoroutine()
	target := mustAgent(t, "target", mock.Scripted(mock.Deltas("a", "b", "c")))
	parent := mustAgent(t, "parent", mock.Scripted(transfer("target")), helikon.WithHandoffs(helikon.HandoffTo(target)))
	for ev := range parent.Run(context.Background(), nil, helikon.UserText("go")) {
		if _, ok := ev.(helikon.TokenDelta); ok {
			break
		}
	}
	settleGoroutines(t, base)
}
