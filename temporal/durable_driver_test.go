package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"iter"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// localHost runs a durable run's steps in process, through the same
// activity code a worker serves, without Temporal: the reference the
// driver is held to.
type localHost struct {
	ctx    context.Context
	acts   *activities
	seed   json.RawMessage
	events []helikon.Event
	decide func([]helikon.PendingApproval) []helikon.Decision
}

func newLocalHost(t *testing.T, cfg workerConfig) *localHost {
	t.Helper()
	reg, err := newRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &localHost{ctx: context.Background(), acts: &activities{reg: reg}}
}

func (h *localHost) in(a agentRef) stepIn { return stepIn{Agent: a, Seed: h.seed} }

func (h *localHost) plan(a agentRef) (helikon.TransitionCtx, int, error) { return h.acts.reg.plan(a) }

func (h *localHost) start(a agentRef, input []helikon.Item) ([]helikon.Item, []string, []helikon.Event) {
	out, err := h.acts.StartRun(h.ctx, startIn{stepIn: h.in(a), Input: input})
	if err != nil {
		return nil, nil, []helikon.Event{helikon.RunFailed{Err: err}}
	}
	return out.System, out.Inject, out.Failure
}

func (h *localHost) callModel(a agentRef, turn int, req *helikon.ModelRequest, inject []string) helikon.TransitionInput {
	out, err := h.acts.CallModel(h.ctx, modelIn{stepIn: h.in(a), Turn: turn, Request: req, Inject: inject})
	if err != nil {
		return helikon.Abort{Err: err}
	}
	return out.input()
}

func (h *localHost) runTools(a agentRef, work []toolWork, _ int) []toolDone {
	out := make([]toolDone, len(work))
	for i, w := range work {
		if st, ok := w.local(); ok {
			out[i] = st
			continue
		}
		c := w.Call
		r, err := h.acts.InvokeTool(h.ctx, toolIn{stepIn: h.in(a), Call: c, Pending: w.Pending, Args: w.Args, Decision: w.Decision})
		if err != nil {
			r.Result = helikon.ToolResult{CallID: c.CallID, Name: c.Name, IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: err.Error()}}}
		}
		out[i] = toolDone{ToolStep: r.step()}
	}
	return out
}

// await answers a pause with the host's decide function.
func (h *localHost) await(_ agentRef, pending []helikon.PendingApproval, usage helikon.Usage) []helikon.Decision {
	h.emit(helikon.RunPaused{Usage: usage, State: &helikon.RunState{Pending: pending}})
	if h.decide == nil {
		return nil
	}
	return h.decide(pending)
}

func (h *localHost) hook(a agentRef, ev *helikon.HookEvent) (bool, string) {
	out, err := h.acts.Hook(h.ctx, hookIn{stepIn: h.in(a), Event: *ev})
	if err != nil {
		return true, err.Error()
	}
	return out.Denied, out.Reason
}

func (h *localHost) filter(a agentRef, target string, conv []helikon.Item) []helikon.Item {
	return h.acts.reg.filter(a, target, conv)
}

func (h *localHost) finish(a agentRef, output string, handedOff bool) []helikon.Event {
	out, err := h.acts.FinishRun(h.ctx, finishIn{stepIn: h.in(a), Output: output, HandedOff: handedOff})
	if err != nil {
		return []helikon.Event{helikon.RunFailed{Err: err}}
	}
	return out.Failure
}

func (h *localHost) emit(ev helikon.Event) { h.events = append(h.events, ev) }

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

var addTool = helikon.MustTool("add", "Add two integers.", func(_ *helikon.ToolContext, in addArgs) (int, error) {
	return in.A + in.B, nil
})

var leakTool = helikon.MustTool("leak", "Returns a secret.", func(_ *helikon.ToolContext, _ struct{}) (string, error) {
	return "the key is API_KEY=sk-live-0123456789abcdefghijklmnop, the vault says tenant-secret-value-42", nil
})

type verdict struct {
	Label string `json:"label"`
}

// injectHook asks for a system message before every tool call.
type injectHook struct{}

func (injectHook) OnEvent(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
	if ev.Kind == helikon.PreToolUse {
		return helikon.HookDecision{Action: helikon.HookInjectSystemMessage, Message: "remember: " + ev.Tool}
	}
	return helikon.HookDecision{}
}

// scenario is one run, built fresh for each side so both get the same
// scripted model from its first script.
type scenario struct {
	name  string
	build func(t *testing.T) (*helikon.LLMAgent, WorkerPosture)
}

func mustAgent(t *testing.T, name string, m helikon.Model, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	a, err := helikon.NewAgent(name, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tripOn is a guardrail that trips when the text it checks contains word.
func tripOn(kind helikon.GuardrailKind, word string) helikon.Guardrail {
	return helikon.GuardrailFunc(func(_ context.Context, _ *helikon.RunContext, in helikon.GuardrailInput) (*helikon.Tripwire, error) {
		if strings.Contains(in.Text, word) {
			return &helikon.Tripwire{Kind: kind, Reason: "mentions " + word}, nil
		}
		return nil, nil
	})
}

// failingTool's function fails: its error is the call's result.
var failingTool = helikon.MustTool("ledger", "Reads the ledger.", func(_ *helikon.ToolContext, _ struct{}) (string, error) {
	return "", errors.New("ledger offline")
})

// workerHooks are run-level hooks a worker's posture registers: the
// PreToolUse hook denies every call of leak, and the PostToolUse hook
// replaces add's output.
func workerHooks() *helikon.HookRegistry {
	return helikon.NewHookRegistry(helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		switch {
		case ev.Kind == helikon.PreToolUse && ev.Tool == "leak":
			return helikon.HookDecision{Action: helikon.HookDeny, Reason: "leak is off limits on this worker"}
		case ev.Kind == helikon.PostToolUse && ev.Tool == "add":
			return helikon.HookDecision{Action: helikon.HookReplaceOutput, Value: json.RawMessage(`"three, said the hook"`)}
		}
		return helikon.HookDecision{}
	}))
}

// scenarios are whole runs along the paths of the core's transition table
// (internal/transitiontest, which the durable package's
// TestDriver_FollowsTheCoresTransitionTable runs row by row): a plain answer, tool rounds (one parallel), a
// structured answer that needs its repair turn, a schema miss twice, the
// turn budget, a model failure, a handoff, a denied call, hook injections
// and redaction; and the steps around the loop: input and output
// guardrails that trip or pass, a tool whose function fails, and the
// worker posture's own hooks.
func scenarios() []scenario {
	return []scenario{
		{"plain answer", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Deltas("hel", "lo")), helikon.WithInstructions("be brief")), WorkerPosture{}
		}},
		{"tool rounds, one parallel", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "calc", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}),
				mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":3,"b":4}`}, mock.Call{ID: "c3", Name: "add", Args: `{"a":5,"b":6}`}),
				mock.Deltas("the ", "sums ", "are ", "3, 7, 11"),
			), helikon.WithTools(addTool)), WorkerPosture{}
		}},
		{"structured output repaired", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "judge", mock.Scripted(
				mock.Text(`{"label": 3}`),
				mock.Text(`{"label": "ok"}`),
			), helikon.WithOutput[verdict]()), WorkerPosture{}
		}},
		{"invalid arguments twice", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "calc", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":"x"}`}),
				mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":"y"}`}),
			), helikon.WithTools(addTool)), WorkerPosture{}
		}},
		{"turn budget", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "calc", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}),
				mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":1,"b":2}`}),
			), helikon.WithTools(addTool), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 2})), WorkerPosture{}
		}},
		{"model failure", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Fail(errors.New("provider down")))), WorkerPosture{}
		}},
		{"handoff", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			b := mustAgent(t, "billing", mock.Scripted(mock.Text("refund issued")))
			return mustAgent(t, "triage", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_billing", Args: `{}`}),
			), helikon.WithHandoffs(helikon.HandoffTo(b))), WorkerPosture{}
		}},
		{"agent as tool", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			summarizer := mustAgent(t, "summarizer", mock.Scripted(mock.Text("short version")))
			tool, err := helikon.AgentAsTool(summarizer)
			if err != nil {
				t.Fatal(err)
			}
			return mustAgent(t, "writer", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "summarizer", Args: `{"input":"a long text"}`}),
				mock.Text("here it is"),
			), helikon.WithTools(tool)), WorkerPosture{}
		}},
		{"denied call, hook injection, redaction", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "ops", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, mock.Call{ID: "c2", Name: "leak", Args: `{}`}),
				mock.Text("done"),
			), helikon.WithTools(addTool, leakTool), helikon.WithHooks(injectHook{})), WorkerPosture{Deny: []governance.DenyRule{governance.DenyTool("add")}}
		}},
		// A durable run's input guardrails finish before the first turn,
		// as WithBlockingInputGuardrails has them in process
		// (TestWorkflow_TrippedInputGuardrailFailsTheRunAsInProcess
		// compares the default).
		{"input guardrail tripped", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Text("never sent")),
				helikon.WithInputGuardrails(tripOn(helikon.GuardrailInputPolicy, "go")), helikon.WithBlockingInputGuardrails()), WorkerPosture{}
		}},
		{"input guardrail passes", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Text("hello")), helikon.WithInputGuardrails(tripOn(helikon.GuardrailInputPolicy, "wire money"))), WorkerPosture{}
		}},
		{"output guardrail tripped", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Text("your password is hunter2")), helikon.WithOutputGuardrails(tripOn(helikon.GuardrailOutputPolicy, "password"))), WorkerPosture{}
		}},
		{"output guardrail passes", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "a", mock.Scripted(mock.Text("all clear")), helikon.WithOutputGuardrails(tripOn(helikon.GuardrailOutputPolicy, "password"))), WorkerPosture{}
		}},
		{"tool function fails", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "books", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "ledger", Args: `{}`}),
				mock.Text("the ledger is offline"),
			), helikon.WithTools(failingTool)), WorkerPosture{}
		}},
		{"worker posture hooks", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			return mustAgent(t, "ops", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, mock.Call{ID: "c2", Name: "leak", Args: `{}`}),
				mock.Text("done"),
			), helikon.WithTools(addTool, leakTool)), WorkerPosture{Mode: governance.PermissionBypass, Allow: []governance.AllowRule{governance.AllowTool("leak")}, Hooks: workerHooks()}
		}},
		// The target reports the transcript it got, which the handoff's
		// filter stripped of the tool call and its result.
		{"handoff with an input filter", func(t *testing.T) (*helikon.LLMAgent, WorkerPosture) {
			b := mustAgent(t, "billing", countModel{})
			return mustAgent(t, "triage", mock.Scripted(
				mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}),
				mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_billing", Args: `{}`}),
			), helikon.WithTools(addTool), helikon.WithHandoffs(helikon.Handoff{Agent: b, InputFilter: helikon.DropToolItems})), WorkerPosture{}
		}},
	}
}

// countModel answers with the roles of the messages it was sent.
type countModel struct{}

func (countModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }

func (countModel) Invoke(_ context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	roles := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		roles[i] = string(m.Role)
	}
	return func(yield func(helikon.ModelEvent, error) bool) {
		yield(helikon.TokenDelta{Text: "saw " + strings.Join(roles, ",")}, nil)
	}
}

// encodeAll renders evs as JSON without their times, which differ between
// any two runs (and between the workflow's clock and the process's).
func encodeAll(t *testing.T, evs []helikon.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = withoutTimes(t, b)
	}
	return out
}

// withoutTimes re-encodes the JSON object data without the members that
// hold times, at any depth.
func withoutTimes(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"at", "first_token_at", "started_at", "ended_at"} {
				delete(v, k)
			}
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkStamped fails t unless every event of evs but the raw deltas
// carries a time.
func checkStamped(t *testing.T, evs []helikon.Event) {
	t.Helper()
	for i, ev := range evs {
		switch ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			continue
		}
		if helikon.EventTime(ev).IsZero() {
			b, _ := json.Marshal(ev)
			t.Fatalf("event %d carries no time: %s", i, b)
		}
	}
}

func TestDurableDriver_YieldsTheInProcessLoopsEvents(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			ref, posture := sc.build(t)
			want, _ := helikon.Collect(ref.Run(context.Background(), helikon.NewRunContext(posture.options(true)...), helikon.UserText("go")))

			ag, posture := sc.build(t)
			h := newLocalHost(t, workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
			runLoop(h, agentRef{Name: ag.Name()}, helikon.UserText("go"), false)

			// The durable run streams settled items only: the model's raw
			// deltas stay inside its step.
			got, w := encodeAll(t, h.events), encodeAll(t, settled(want.Events))
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Fatalf("durable events differ from the in-process loop's\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
		})
	}
}

// settled drops the raw model deltas from a stream.
func settled(evs []helikon.Event) []helikon.Event {
	var out []helikon.Event
	for _, ev := range evs {
		switch ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			continue
		}
		out = append(out, ev)
	}
	return out
}
