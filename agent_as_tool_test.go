package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/workflow"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestAgentAsTool_NameDescriptionAndSchema(t *testing.T) {
	sub := answerer(t, "Research Assistant", "x", helikon.WithDescription("Finds facts."))
	tests := []struct {
		name             string
		opts             []helikon.AgentToolOption
		wantName, wantDs string
	}{
		{"defaults to the agent's, slugged when not a valid tool name", nil, "research_assistant", "Finds facts."},
		{"overridden", []helikon.AgentToolOption{helikon.WithToolName("lookup"), helikon.WithDescription("Look things up.")}, "lookup", "Look things up."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := helikon.AgentAsTool(sub, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name() != tt.wantName || tool.Description() != tt.wantDs {
				t.Errorf("tool = %q %q", tool.Name(), tool.Description())
			}
			s := tool.InputSchema()
			if len(s.Properties) != 1 || s.Properties["input"].Type != "string" || !slicesEqual(s.Required, []string{"input"}) {
				b, _ := json.Marshal(s)
				t.Errorf("schema = %s, want one required string input", b)
			}
		})
	}
	if _, err := helikon.AgentAsTool(sub, helikon.WithToolName("bad name!")); err == nil {
		t.Error("an invalid tool name was accepted")
	}
	if _, err := helikon.AgentAsTool(nil); !errors.Is(err, helikon.ErrInvalidOption) {
		t.Errorf("nil agent: err = %v", err)
	}
}

func TestAgentAsTool_FinalOutputIsTheToolOutputAndControlReturns(t *testing.T) {
	subModel := mock.Scripted(mock.Text("- rates up\n- jobs steady"))
	summarizer := mustAgent(t, "summarizer", subModel, helikon.WithInstructions("Summarize as bullets."))
	tool, err := helikon.AgentAsTool(summarizer)
	if err != nil {
		t.Fatal(err)
	}
	writerModel := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "summarizer", Args: `{"input":"long article"}`}),
		mock.Text("Reply drafted."))
	writer := mustAgent(t, "writer", writerModel, helikon.WithTools(tool))
	res, err := helikon.Collect(writer.Run(context.Background(), nil, helikon.UserText("draft a reply")))
	if err != nil || res.FinalOutput != "Reply drafted." {
		t.Fatalf("run: %v, %q", err, res.FinalOutput)
	}
	if got := subModel.Requests()[0].Messages; len(got) != 2 || got[1].Role != helikon.RoleUser || got[1].Text() != "long article" {
		t.Errorf("sub-agent saw %+v, want its instructions and the input as a user message", got)
	}
	r := findResult(t, res.Events, "c1")
	if r.IsError || r.Content[0].(helikon.TextPart).Text != "- rates up\n- jobs steady" {
		t.Errorf("tool result = %+v", r)
	}
	// The sub-run's usage counts in the caller's: two writer turns and one
	// summarizer turn.
	if res.Usage != (helikon.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Errorf("usage = %+v", res.Usage)
	}
}

type ctxUser struct{ ID string }

func TestAgentAsTool_SubRunIsIsolatedButInheritsWhatCrosses(t *testing.T) {
	parentState := helikon.NewState()
	parentState.Set("notes", "from the caller")
	parentSession := helikon.NewMemorySession()
	var parentHookCalls int
	hooks := helikon.NewHookRegistry(helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.PreToolUse {
			parentHookCalls++
		}
		return helikon.HookDecision{}
	}))
	rc := helikon.NewRunContext(helikon.WithUser(ctxUser{ID: "u1"}), helikon.WithSession(parentSession), helikon.WithHookRegistry(hooks),
		helikon.WithState(parentState), helikon.WithTracer(helikon.TracerHandle{SessionID: "s1", Tags: []string{"t"}}),
		governance.WithPermissionMode(governance.PermissionAcceptEdits),
		helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 2}))

	var seen *helikon.RunContext
	probe := helikon.WithInstructionsFunc(func(_ context.Context, sub *helikon.RunContext) (string, error) {
		seen = sub
		return "", nil
	})
	innerTool := helikon.MustTool("inner", "", func(*helikon.ToolContext, struct{}) (string, error) { return "ok", nil }, helikon.WithEffect(helikon.ReadOnly))
	// Three turns: the caller's MaxTurns of 2 must not cross.
	sub := mustAgent(t, "sub", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "i1", Name: "inner", Args: `{}`}),
		mock.ToolCalls(mock.Call{ID: "i2", Name: "inner", Args: `{}`}),
		mock.Text("sub done")),
		probe, helikon.WithTools(innerTool))
	tool, _ := helikon.AgentAsTool(sub)
	caller := mustAgent(t, "caller", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c", Name: "sub", Args: `{"input":"hi"}`}), mock.Text("ok")),
		helikon.WithTools(tool))

	res, err := helikon.Collect(caller.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, res.Events, "c"); r.IsError {
		t.Fatalf("sub-run failed: %+v", r)
	}
	if seen == nil {
		t.Fatal("the sub-agent never rendered its instructions")
	}
	if u, ok := helikon.User[ctxUser](seen); !ok || u.ID != "u1" {
		t.Error("user value did not cross")
	}
	if seen.Tracer().SessionID != "s1" {
		t.Error("tracer did not cross")
	}
	if governance.ModeOf(seen) != governance.PermissionAcceptEdits {
		t.Error("permission mode did not cross")
	}
	if seen.Depth() != 1 {
		t.Errorf("depth = %d, want the caller's plus one", seen.Depth())
	}
	if seen.Session() == helikon.Session(parentSession) || seen.Hooks().Len() != 0 || seen.Config() != nil {
		t.Error("session, hooks or run config crossed")
	}
	if seen.State().String("notes") != "from the caller" {
		t.Error("state did not cross")
	}
	// The caller's PreToolUse hook saw the caller's call, not the sub-agent's.
	if parentHookCalls != 1 {
		t.Errorf("caller's hook fired %d times, want 1", parentHookCalls)
	}
}

func TestAgentAsTool_PermissionModeGovernsTheSubAgentsTools(t *testing.T) {
	ran := false
	write := helikon.MustTool("write_file", "", func(*helikon.ToolContext, struct{}) (string, error) { ran = true; return "", nil }, helikon.WithEffect(helikon.Write))
	subModel := mock.Scripted(mock.ToolCalls(mock.Call{ID: "w", Name: "write_file", Args: `{}`}), mock.Text("could not write"))
	tool, _ := helikon.AgentAsTool(mustAgent(t, "writer", subModel, helikon.WithTools(write)))
	caller := mustAgent(t, "caller", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c", Name: "writer", Args: `{"input":"save it"}`}), mock.Text("ok")),
		helikon.WithTools(tool))
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionPlan))
	res, err := helikon.Collect(caller.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, res.Events, "c"); r.IsError {
		t.Fatalf("plan mode refused the agent tool itself: %+v", r)
	}
	if ran {
		t.Fatal("plan mode did not reach the sub-agent's write tool")
	}
	denied := subModel.Requests()[1].Messages[2].Content[0].(helikon.ToolResultPart)
	if !denied.IsError || !strings.Contains(denied.Content[0].(helikon.TextPart).Text, "plan") {
		t.Errorf("sub-agent saw %+v, want a plan-mode denial", denied)
	}
}

func TestAgentAsTool_FailureIsAToolErrorNotARunFailure(t *testing.T) {
	tests := []struct {
		name    string
		sub     *helikon.LLMAgent
		wantMsg string
	}{
		{"sub-run failure", mustAgent(t, "sub", mock.Scripted(mock.Fail(errors.New("model down")))), "model down"},
		{"twice-invalid arguments inside do not count against the caller", mustAgent(t, "sub", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "1", Name: "add", Args: `{"a":"x"}`}),
			mock.ToolCalls(mock.Call{ID: "2", Name: "add", Args: `{"a":"y"}`})), helikon.WithTools(addTool)), "missed the schema twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, _ := helikon.AgentAsTool(tt.sub)
			caller := mustAgent(t, "caller", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c", Name: "sub", Args: `{"input":"go"}`}), mock.Text("recovered")),
				helikon.WithTools(tool))
			res, err := helikon.Collect(caller.Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil || res.FinalOutput != "recovered" {
				t.Fatalf("run: %v, %q", err, res.FinalOutput)
			}
			r := findResult(t, res.Events, "c")
			if !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, tt.wantMsg) {
				t.Errorf("result = %+v", r)
			}
		})
	}
}

func TestAgentAsTool_SubRunGetsTheToolsOwnRunConfig(t *testing.T) {
	again := helikon.MustTool("again", "", func(*helikon.ToolContext, struct{}) (string, error) { return "", nil })
	sub := mustAgent(t, "sub", mock.Scripted(mock.ToolCalls(mock.Call{ID: "a", Name: "again", Args: `{}`}), mock.Text("late")),
		helikon.WithTools(again))
	tool, _ := helikon.AgentAsTool(sub, helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 1}))
	caller := mustAgent(t, "caller", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c", Name: "sub", Args: `{"input":"go"}`}), mock.Text("ok")),
		helikon.WithTools(tool))
	res, err := helikon.Collect(caller.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, res.Events, "c"); !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, "max turns exceeded") {
		t.Errorf("result = %+v, want the sub-run's one-turn budget to hold", r)
	}
}

func TestAgentAsTool_CallersDepthBoundCrosses(t *testing.T) {
	// outer (depth 0) hands off to caller (depth 1), whose own bound is 1:
	// the sub-run at depth 2 is refused, and the caller's model hears so.
	tool, _ := helikon.AgentAsTool(answerer(t, "sub", "x"))
	caller := mustAgent(t, "caller", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c", Name: "sub", Args: `{"input":"go"}`}), mock.Text("recovered")),
		helikon.WithTools(tool), helikon.WithRunConfig(helikon.RunConfig{MaxAgentDepth: 1}))
	outer := mustAgent(t, "outer", mock.Scripted(transfer("caller")), helikon.WithHandoffs(helikon.HandoffTo(caller)))
	res, err := helikon.Collect(outer.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "recovered" {
		t.Fatalf("run: %v", err)
	}
	r := findResult(t, res.Events, "c")
	if !r.IsError || !strings.Contains(r.Content[0].(helikon.TextPart).Text, "max agent depth exceeded") {
		t.Errorf("result = %+v", r)
	}
}

func TestAgentAsTool_CancellationCrossesAndLeaksNothing(t *testing.T) {
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	block := helikon.MustTool("block", "", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		close(started)
		<-tc.Done()
		return "", tc.Err()
	})
	sub := mustAgent(t, "sub", mock.Scripted(mock.ToolCalls(mock.Call{ID: "b", Name: "block", Args: `{}`}), mock.Text("never")), helikon.WithTools(block))
	tool, _ := helikon.AgentAsTool(sub)
	caller := mustAgent(t, "caller", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c", Name: "sub", Args: `{"input":"go"}`}), mock.Text("never")),
		helikon.WithTools(tool))
	go func() {
		select {
		case <-started:
			cancel()
		case <-time.After(10 * time.Second):
		}
	}()
	_, err := helikon.Collect(caller.Run(ctx, nil, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrCancelled) {
		t.Fatalf("err = %v, want Cancelled", err)
	}
	settleGoroutines(t, base)
}

func TestAgentAsTool_WrapsWorkflowAgents(t *testing.T) {
	fan, _ := workflow.NewParallel("views", workflow.Step(answerer(t, "bull", "up")), workflow.Step(answerer(t, "bear", "down")))
	tool, err := helikon.AgentAsTool(fan, helikon.WithDescription("Get a bull and a bear view."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(helikon.NewToolContext(context.Background(), nil, "c", "views"), json.RawMessage(`{"input":"market?"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Parts[0].(helikon.TextPart).Text; got != `{"bear":"down","bull":"up"}` {
		t.Errorf("output = %q", got)
	}
	var s string
	if json.Unmarshal(out.Content, &s); s != `{"bear":"down","bull":"up"}` {
		t.Errorf("content = %s, want the output as a JSON string", out.Content)
	}
}
