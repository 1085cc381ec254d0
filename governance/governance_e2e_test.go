package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

type bashArgs struct {
	Command string `json:"command" jsonschema:"the command line"`
}

type writeArgs struct {
	FilePath string `json:"file_path" jsonschema:"the file to write"`
	Content  string `json:"content" jsonschema:"what to write"`
}

// recorder stands in for the real tools: it records what ran and answers
// with a fixed output.
type recorder struct {
	mu     sync.Mutex
	ran    []string
	output string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.ran = append(r.ran, s)
	r.mu.Unlock()
}

func (r *recorder) bashTool() helikon.Tool {
	return helikon.MustTool("Bash", "Run a shell command.", func(tc *helikon.ToolContext, in bashArgs) (string, error) {
		r.add(in.Command)
		return r.output, nil
	})
}

func (r *recorder) writeTool() helikon.Tool {
	return helikon.MustTool("Write", "Write a file.", func(tc *helikon.ToolContext, in writeArgs) (string, error) {
		r.add(in.FilePath)
		return "written", nil
	}, helikon.WithEffect(helikon.Write))
}

func bashCall(cmd string) mock.Script {
	b, _ := json.Marshal(bashArgs{Command: cmd})
	return mock.ToolCalls(mock.Call{ID: "c1", Name: "Bash", Args: string(b)})
}

// toolResultText returns what the model was shown for the first tool
// result in its second request.
func toolResultText(t *testing.T, m *mock.Model) string {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) < 2 {
		t.Fatalf("model saw %d requests", len(reqs))
	}
	for _, it := range reqs[1].Messages {
		for _, p := range it.Content {
			if tr, ok := p.(helikon.ToolResultPart); ok {
				var b strings.Builder
				for _, c := range tr.Content {
					if tp, ok := c.(helikon.TextPart); ok {
						b.WriteString(tp.Text)
					}
				}
				return b.String()
			}
		}
	}
	t.Fatal("no tool result reached the model")
	return ""
}

func eventsOf[T helikon.Event](res *helikon.RunResult) []T {
	var out []T
	for _, ev := range res.Events {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

func run(t *testing.T, agent helikon.Agent, rc *helikon.RunContext) (*helikon.RunResult, error) {
	t.Helper()
	return helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
}

// Row 1: the PreToolUse hook fires first; it may deny or ReplaceInput the args.
func TestCompose_PreToolUseHookDeniesOrRewritesBeforePermissions(t *testing.T) {
	t.Run("deny", func(t *testing.T) {
		rec := &recorder{output: "ok"}
		m := mock.Scripted(bashCall("ls"), mock.Text("done"))
		hook := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
			if ev.Kind == helikon.PreToolUse {
				return helikon.HookDecision{Action: helikon.HookDeny, Reason: "audit window closed"}
			}
			return helikon.HookDecision{}
		})
		agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()), helikon.WithHooks(hook))
		res, err := run(t, agent, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.ran) != 0 {
			t.Errorf("tool ran: %q", rec.ran)
		}
		if d := eventsOf[helikon.PermissionDenied](res); len(d) != 1 || d[0].Reason != "audit window closed" {
			t.Errorf("PermissionDenied events = %+v", d)
		}
	})
	t.Run("rewrite", func(t *testing.T) {
		rec := &recorder{output: "ok"}
		m := mock.Scripted(bashCall("rm -rf /"), mock.Text("done"))
		hook := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
			if ev.Kind == helikon.PreToolUse {
				return helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{"command":"ls"}`)}
			}
			return helikon.HookDecision{}
		})
		agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()), helikon.WithHooks(hook))
		if _, err := run(t, agent, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.ran, []string{"ls"}) {
			t.Errorf("ran %q, want the rewritten ls (the guard judged the rewritten call)", rec.ran)
		}
	})
}

// Row 2: the permission pipeline authorizes the (possibly rewritten) call.
func TestCompose_PermissionPipelineJudgesTheRewrittenCall(t *testing.T) {
	rec := &recorder{output: "ok"}
	m := mock.Scripted(bashCall("ls"), mock.Text("done"))
	hook := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.PreToolUse {
			return helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{"command":"echo ok && rm -rf ."}`)}
		}
		return helikon.HookDecision{}
	})
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()), helikon.WithHooks(hook))
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass), governance.WithDenyRules(governance.DenyBash("rm")))
	res, err := run(t, agent, rc)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.ran) != 0 {
		t.Errorf("tool ran %q despite a deny rule under bypass", rec.ran)
	}
	if d := eventsOf[helikon.PermissionDenied](res); len(d) != 1 || !strings.Contains(d[0].Reason, "Bash(rm)") {
		t.Errorf("PermissionDenied = %+v", d)
	}
	if got := toolResultText(t, m); !strings.Contains(got, "permission denied") {
		t.Errorf("model was told %q", got)
	}
}

func TestCompose_GuardAskEmitsApprovalRequestedAndPausesHeadless(t *testing.T) {
	rec := &recorder{output: "ok"}
	m := mock.Scripted(bashCall("sudo rm -rf /"), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()))
	res, err := run(t, agent, helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass)))
	if !errors.Is(err, helikon.ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	if len(rec.ran) != 0 {
		t.Errorf("tool ran %q", rec.ran)
	}
	if a := eventsOf[helikon.ApprovalRequested](res); len(a) != 1 || a[0].Tool != "Bash" || !strings.Contains(a[0].AskedBy, governance.GuardRecursiveRemove) {
		t.Errorf("ApprovalRequested = %+v", a)
	}
	if p := res.Paused.Pending; len(p) != 1 || !strings.Contains(p[0].AskedBy, governance.GuardRecursiveRemove) {
		t.Errorf("pending = %+v", p)
	}
}

// Row 3: the tool runs; the PostToolUse hook may ReplaceOutput.
// Row 4: secret redaction runs last, on what the hook produced.
func TestCompose_PostToolUseReplacesOutputThenRedactionRunsLast(t *testing.T) {
	rec := &recorder{output: "raw output"}
	m := mock.Scripted(bashCall("env"), mock.Text("done"))
	hook := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.PostToolUse {
			return helikon.HookDecision{Action: helikon.HookReplaceOutput, Value: json.RawMessage(`"hooked: GITHUB_TOKEN=ghp_live_1234 and my-extra-secret-1"`)}
		}
		return helikon.HookDecision{}
	})
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()), helikon.WithHooks(hook))
	if _, err := run(t, agent, helikon.NewRunContext(governance.WithExtraSecrets("my-extra-secret-1"))); err != nil {
		t.Fatal(err)
	}
	if got, want := toolResultText(t, m), `"hooked: GITHUB_TOKEN=*** and ***"`; got != want {
		t.Errorf("model saw %s, want %s", got, want)
	}
}

func TestCompose_RedactionCanBeTurnedOff(t *testing.T) {
	rec := &recorder{output: "GITHUB_TOKEN=ghp_live_1234"}
	m := mock.Scripted(bashCall("env"), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()))
	if _, err := run(t, agent, helikon.NewRunContext(governance.WithoutOutputRedaction())); err != nil {
		t.Fatal(err)
	}
	if got := toolResultText(t, m); got != `"GITHUB_TOKEN=ghp_live_1234"` {
		t.Errorf("model saw %s", got)
	}
}

// Input guardrails gate user text before the loop; output guardrails gate
// the final text.
func TestCompose_GuardrailsGateTheSurroundingText(t *testing.T) {
	block := helikon.GuardrailFunc(func(_ context.Context, _ *helikon.RunContext, in helikon.GuardrailInput) (*helikon.Tripwire, error) {
		if strings.Contains(in.Text, "BEGIN PRIVATE KEY") {
			kind := helikon.GuardrailInputPolicy
			if in.Kind == helikon.GuardModelOutput {
				kind = helikon.GuardrailOutputPolicy
			}
			return &helikon.Tripwire{Kind: kind, Info: map[string]string{"matched": "private key"}}, nil
		}
		return nil, nil
	})
	tests := []struct {
		name   string
		user   string
		answer string
		opts   []helikon.AgentOption
		kind   helikon.GuardrailKind
	}{
		{"input, parallel", "here is -----BEGIN PRIVATE KEY-----", "fine", nil, helikon.GuardrailInputPolicy},
		{"input, blocking", "here is -----BEGIN PRIVATE KEY-----", "fine", []helikon.AgentOption{helikon.WithBlockingInputGuardrails()}, helikon.GuardrailInputPolicy},
		{"output", "hello", "-----BEGIN PRIVATE KEY-----", nil, helikon.GuardrailOutputPolicy},
		{"pass", "hello", "fine", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mock.Scripted(mock.Text(tt.answer))
			opts := append([]helikon.AgentOption{helikon.WithInputGuardrails(block), helikon.WithOutputGuardrails(block)}, tt.opts...)
			agent, _ := helikon.NewAgent("assistant", m, opts...)
			res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText(tt.user)))
			trig := eventsOf[helikon.GuardrailTriggered](res)
			if tt.kind == "" {
				if err != nil || len(trig) != 0 {
					t.Fatalf("err %v, triggered %+v", err, trig)
				}
				return
			}
			if !errors.Is(err, &helikon.AgentError{Kind: helikon.KindGuardrail}) {
				t.Fatalf("err = %v, want a guardrail failure", err)
			}
			if len(trig) != 1 || trig[0].Kind != tt.kind {
				t.Fatalf("GuardrailTriggered = %+v", trig)
			}
			if _, last := res.Events[len(res.Events)-1].(helikon.RunFailed); !last {
				t.Error("the run did not end with RunFailed")
			}
			if tt.kind == helikon.GuardrailInputPolicy && len(eventsOf[helikon.TokenDelta](res)) != 0 {
				t.Error("the model's answer to tripped input leaked")
			}
		})
	}
}

// hangingModel streams one delta, then waits for its context to end and
// records whether it did.
type hangingModel struct{ cancelled chan bool }

func (m *hangingModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true}
}

func (m *hangingModel) Invoke(ctx context.Context, _ *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		if !yield(helikon.TokenDelta{Text: "partial answer"}, nil) {
			return
		}
		select {
		case <-ctx.Done():
			m.cancelled <- true
			yield(nil, ctx.Err())
		case <-time.After(30 * time.Second): // a guard against hanging the suite, not a timing check
			m.cancelled <- false
		}
	}
}

func TestInputGuardrail_TripwireCancelsTheParallelFirstModelCall(t *testing.T) {
	m := &hangingModel{cancelled: make(chan bool, 1)}
	trip := helikon.GuardrailFunc(func(context.Context, *helikon.RunContext, helikon.GuardrailInput) (*helikon.Tripwire, error) {
		return &helikon.Tripwire{Kind: helikon.GuardrailInputPolicy}, nil
	})
	agent, _ := helikon.NewAgent("a", m, helikon.WithInputGuardrails(trip))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("x")))
	if !errors.Is(err, &helikon.AgentError{Kind: helikon.KindGuardrail}) {
		t.Fatalf("err = %v", err)
	}
	if !<-m.cancelled {
		t.Error("the first model call was not cancelled by the tripwire")
	}
	if n := len(eventsOf[helikon.TokenDelta](res)); n != 0 {
		t.Errorf("%d deltas leaked", n)
	}
}

func TestInputGuardrail_ErrorIsATripwireOfKindOther(t *testing.T) {
	broken := helikon.GuardrailFunc(func(context.Context, *helikon.RunContext, helikon.GuardrailInput) (*helikon.Tripwire, error) {
		return nil, errors.New("classifier unavailable")
	})
	for _, blocking := range []bool{false, true} {
		opts := []helikon.AgentOption{helikon.WithInputGuardrails(broken)}
		if blocking {
			opts = append(opts, helikon.WithBlockingInputGuardrails())
		}
		agent, _ := helikon.NewAgent("a", mock.Scripted(mock.Text("hi")), opts...)
		res, err := run(t, agent, nil)
		trig := eventsOf[helikon.GuardrailTriggered](res)
		if len(trig) != 1 || trig[0].Kind != helikon.GuardrailOther || err == nil || !strings.Contains(err.Error(), "classifier unavailable") {
			t.Errorf("blocking=%v: triggered %+v, err %v", blocking, trig, err)
		}
	}
}

func TestInputGuardrail_PassingCheckReleasesTheHeldEvents(t *testing.T) {
	slowPass := helikon.GuardrailFunc(func(ctx context.Context, _ *helikon.RunContext, _ helikon.GuardrailInput) (*helikon.Tripwire, error) {
		time.Sleep(10 * time.Millisecond)
		return nil, nil
	})
	agent, _ := helikon.NewAgent("a", mock.Scripted(mock.Deltas("he", "llo")), helikon.WithInputGuardrails(slowPass))
	res, err := run(t, agent, nil)
	if err != nil || res.FinalOutput != "hello" || len(eventsOf[helikon.TokenDelta](res)) != 2 {
		t.Fatalf("err %v, output %q, events %d", err, res.FinalOutput, len(res.Events))
	}
}

func TestPermissionMode_LooseningFailsTheRun(t *testing.T) {
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass)).Derive(governance.WithPermissionMode(governance.PermissionDefault))
	agent, _ := helikon.NewAgent("a", mock.Scripted(mock.Text("hi")))
	_, err := run(t, agent, rc)
	if !errors.Is(err, governance.ErrPermissionModeLoosened) || !errors.Is(err, &helikon.AgentError{Kind: helikon.KindConfig}) {
		t.Fatalf("err = %v", err)
	}
}

// Bypass, DontAsk and the rules propagate to handoff targets.
func TestHandoff_TargetToolsObeyTheParentsModeAndDenyRules(t *testing.T) {
	tests := []struct {
		name    string
		opts    []helikon.ContextOption
		command string
		runs    bool
	}{
		{"deny rule", []helikon.ContextOption{governance.WithDenyRules(governance.DenyBash("curl"))}, "curl example.com", false},
		{"dont_ask", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionDontAsk)}, "ls", false},
		{"dont_ask with allow rule", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionDontAsk), governance.WithAllowRules(governance.AllowBash("ls"))}, "ls", true},
		{"bypass still guarded", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionBypass)}, "rm -rf ~", false},
		{"bypass", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionBypass)}, "ls", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{output: "ok"}
			worker, _ := helikon.NewAgent("worker", mock.Scripted(bashCall(tt.command), mock.Text("worked")), helikon.WithTools(rec.bashTool()))
			router, _ := helikon.NewAgent("router", mock.Scripted(mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_worker", Args: `{}`})),
				helikon.WithHandoffs(helikon.HandoffTo(worker)))
			res, err := run(t, router, helikon.NewRunContext(tt.opts...))
			if err != nil && !errors.Is(err, helikon.ErrPaused) { // a guard's ask pauses
				t.Fatal(err)
			}
			if ran := len(rec.ran) == 1; ran != tt.runs {
				t.Errorf("ran=%v, want %v (events %d)", ran, tt.runs, len(res.Events))
			}
		})
	}
}

func TestHooks_EveryKindFiresAtItsPoint(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	hook := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		mu.Lock()
		defer mu.Unlock()
		name := map[helikon.HookKind]string{
			helikon.OnRunStart: "run_start", helikon.OnTurnStart: "turn_start", helikon.PreToolUse: "pre_tool",
			helikon.PostToolUse: "post_tool", helikon.OnHandoff: "handoff", helikon.OnRunComplete: "run_complete",
			helikon.OnSubagentStop: "subagent_stop",
		}[ev.Kind]
		seen = append(seen, ev.Agent+":"+name)
		return helikon.HookDecision{}
	})
	rec := &recorder{output: "ok"}
	worker, _ := helikon.NewAgent("worker", mock.Scripted(bashCall("ls"), mock.Text("worked")), helikon.WithTools(rec.bashTool()))
	router, _ := helikon.NewAgent("router", mock.Scripted(mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_worker", Args: `{}`})),
		helikon.WithHandoffs(helikon.HandoffTo(worker)))
	if _, err := run(t, router, helikon.NewRunContext(helikon.WithHookRegistry(helikon.NewHookRegistry(hook)))); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"router:run_start", "router:turn_start", "router:handoff",
		"worker:run_start", "worker:turn_start", "worker:pre_tool", "worker:post_tool", "worker:turn_start", "worker:run_complete",
		"worker:subagent_stop", "router:run_complete",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("fired\n %q\nwant\n %q", seen, want)
	}
}

func TestHooks_FoldAgentLevelFirstThenRunLevel(t *testing.T) {
	var order []string
	mk := func(name string, d helikon.HookDecision) helikon.Hook {
		return helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
			if ev.Kind != helikon.PreToolUse {
				return helikon.HookDecision{}
			}
			order = append(order, name)
			return d
		})
	}
	tests := []struct {
		name      string
		agent     []helikon.Hook
		run       []helikon.Hook
		wantRan   string
		wantOrder []string
	}{
		{"replace is last-writer-wins", []helikon.Hook{mk("a1", helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{"command":"echo a"}`)})},
			[]helikon.Hook{mk("r1", helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{"command":"echo r"}`)})}, "echo r", []string{"a1", "r1"}},
		{"first deny short-circuits", []helikon.Hook{mk("a1", helikon.HookDecision{Action: helikon.HookDeny}), mk("a2", helikon.HookDecision{})},
			[]helikon.Hook{mk("r1", helikon.HookDecision{})}, "", []string{"a1"}},
		{"allow passes through", []helikon.Hook{mk("a1", helikon.HookDecision{})}, []helikon.Hook{mk("r1", helikon.HookDecision{})}, "ls", []string{"a1", "r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order = nil
			rec := &recorder{output: "ok"}
			agent, _ := helikon.NewAgent("a", mock.Scripted(bashCall("ls"), mock.Text("done")), helikon.WithTools(rec.bashTool()), helikon.WithHooks(tt.agent...))
			if _, err := run(t, agent, helikon.NewRunContext(helikon.WithHookRegistry(helikon.NewHookRegistry(tt.run...)))); err != nil {
				t.Fatal(err)
			}
			ran := ""
			if len(rec.ran) > 0 {
				ran = rec.ran[0]
			}
			if ran != tt.wantRan || !slices.Equal(order, tt.wantOrder) {
				t.Errorf("ran %q order %q, want %q %q", ran, order, tt.wantRan, tt.wantOrder)
			}
		})
	}
}

func TestHooks_InjectionsAccumulateInFireOrder(t *testing.T) {
	inject := func(msg string) helikon.Hook {
		return helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
			if ev.Kind == helikon.PostToolUse {
				return helikon.HookDecision{Action: helikon.HookInjectSystemMessage, Message: msg}
			}
			return helikon.HookDecision{}
		})
	}
	rec := &recorder{output: "ok"}
	m := mock.Scripted(bashCall("ls"), mock.Text("done"))
	agent, _ := helikon.NewAgent("a", m, helikon.WithTools(rec.bashTool()), helikon.WithHooks(inject("first")))
	if _, err := run(t, agent, helikon.NewRunContext(helikon.WithHookRegistry(helikon.NewHookRegistry(inject("second"))))); err != nil {
		t.Fatal(err)
	}
	var sys []string
	for _, it := range m.Requests()[1].Messages {
		if it.Role == helikon.RoleSystem {
			sys = append(sys, it.Text())
		}
	}
	if !slices.Equal(sys, []string{"first", "second"}) {
		t.Errorf("system messages %q", sys)
	}
}

func TestWriteTool_BreakerRefusesGitWritesEvenWhenAllowed(t *testing.T) {
	rec := &recorder{}
	m := mock.Scripted(mock.ToolCalls(
		mock.Call{ID: "c1", Name: "Write", Args: `{"file_path":".git/hooks/pre-commit","content":"x"}`},
		mock.Call{ID: "c2", Name: "Write", Args: `{"file_path":"src/main.go","content":"x"}`},
	), mock.Text("done"))
	agent, _ := helikon.NewAgent("a", m, helikon.WithTools(rec.writeTool()))
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionAcceptEdits), governance.WithAllowRules(governance.AllowEdit(".git/**")))
	if _, err := run(t, agent, rc); err != nil && !errors.Is(err, helikon.ErrPaused) { // the breaker asks: the round pauses
		t.Fatal(err)
	}
	if !slices.Equal(rec.ran, []string{"src/main.go"}) {
		t.Errorf("wrote %q", rec.ran)
	}
}

// An agent run as a tool ([helikon.AgentAsTool]) obeys the caller's mode
// and deny rules.
func TestAgentAsTool_NestedRunObeysTheCallersModeAndDenyRules(t *testing.T) {
	tests := []struct {
		name    string
		opts    []helikon.ContextOption
		command string
		runs    bool
	}{
		{"deny rule", []helikon.ContextOption{governance.WithDenyRules(governance.DenyBash("curl"))}, "curl example.com", false},
		{"dont_ask", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionDontAsk), governance.WithAllowRules(governance.AllowTool("researcher"))}, "ls", false},
		{"bypass still guarded", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionBypass)}, "sudo rm -rf /", false},
		{"default", nil, "ls", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{output: "ok"}
			inner, _ := helikon.NewAgent("researcher", mock.Scripted(bashCall(tt.command), mock.Text("found")), helikon.WithTools(rec.bashTool()))
			research, err := helikon.AgentAsTool(inner)
			if err != nil {
				t.Fatal(err)
			}
			outer, _ := helikon.NewAgent("lead", mock.Scripted(mock.ToolCalls(mock.Call{ID: "r1", Name: "researcher", Args: `{"input":"look"}`}), mock.Text("done")),
				helikon.WithTools(research))
			if _, err := run(t, outer, helikon.NewRunContext(tt.opts...)); err != nil && !errors.Is(err, helikon.ErrPaused) {
				t.Fatal(err)
			}
			if ran := len(rec.ran) == 1; ran != tt.runs {
				t.Errorf("ran=%v, want %v", ran, tt.runs)
			}
		})
	}
}
