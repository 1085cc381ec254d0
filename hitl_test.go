package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"strings"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// ledger records every run of the tools it builds, so a test can check
// that nothing ran twice.
type ledger struct {
	mu   sync.Mutex
	runs []string
}

func (l *ledger) add(s string) {
	l.mu.Lock()
	l.runs = append(l.runs, s)
	l.mu.Unlock()
}

func (l *ledger) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.runs...)
}

type pathArgs struct {
	Path string `json:"path" jsonschema:"a file path"`
}

// tools returns "remove" (which the askRemove policy puts to a human) and
// "list" (which it allows).
func (l *ledger) tools() []helikon.Tool {
	remove := helikon.MustTool("remove", "Delete a file.", func(_ *helikon.ToolContext, in pathArgs) (string, error) {
		l.add("remove " + in.Path)
		return "removed " + in.Path, nil
	}, helikon.WithEffect(helikon.Write))
	list := helikon.MustTool("list", "List files.", func(_ *helikon.ToolContext, in pathArgs) (string, error) {
		l.add("list " + in.Path)
		return "a.tmp b.tmp", nil
	}, helikon.WithEffect(helikon.ReadOnly))
	return []helikon.Tool{remove, list}
}

// askRemove asks a human about every "remove" call and allows the rest.
type askRemove struct{}

func (askRemove) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Tool == "remove" {
		return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "delete " + string(req.Args) + "?"}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAllow}
}

func removeCall(id, path string) mock.Call {
	return mock.Call{ID: id, Name: "remove", Args: `{"path":"` + path + `"}`}
}

func hitlContext(opts ...helikon.ContextOption) *helikon.RunContext {
	return helikon.NewRunContext(append([]helikon.ContextOption{governance.WithPermissionPolicy(askRemove{})}, opts...)...)
}

// pauseOnce runs agent until it pauses and returns the state after a JSON
// round trip, as a store would keep it.
func pauseOnce(t *testing.T, agent helikon.Agent, rc *helikon.RunContext) (*helikon.RunState, *helikon.RunResult) {
	t.Helper()
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("clean up")))
	var pe *helikon.PausedError
	if !errors.As(err, &pe) {
		t.Fatalf("run did not pause: %v (events %v)", err, typesOf(res.Events))
	}
	return roundTrip(t, pe.State), res
}

func roundTrip(t *testing.T, st *helikon.RunState) *helikon.RunState {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	back, err := helikon.UnmarshalRunState(data)
	if err != nil {
		t.Fatalf("decode state: %v\n%s", err, data)
	}
	return back
}

func resume(t *testing.T, agent helikon.Agent, rc *helikon.RunContext, st *helikon.RunState, ds ...helikon.Decision) (*helikon.RunResult, error) {
	t.Helper()
	return helikon.Collect(helikon.Resume(context.Background(), agent, rc, st, ds))
}

func TestPause_AskWithoutHandlerPausesWithARequestAndAState(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	st, res := pauseOnce(t, agent, hitlContext())
	got := typesOf(res.Events)
	want := []string{"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item", "approval_requested", "run_paused"}
	if !slicesEqual(got, want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	req := eventsOf[helikon.ApprovalRequested](res)[0]
	if len(st.Pending) != 1 {
		t.Fatalf("pending = %+v", st.Pending)
	}
	p := st.Pending[0]
	if p.ID != req.ID || p.ID == "" || p.Tool != "remove" || p.CallID != "c1" || p.AskedBy != "the permission policy" ||
		string(p.Args) != `{"path":"a.tmp"}` || !slicesEqual(p.Path, []string{"cleaner"}) || !strings.HasPrefix(p.Prompt, "delete ") {
		t.Fatalf("pending = %+v, request %+v", p, req)
	}
	if st.Version != helikon.RunStateVersion || st.RunID == "" || st.PauseID == "" || st.Agent != "cleaner" || !strings.HasPrefix(st.Checksum, "sha256:") {
		t.Fatalf("state header = %+v", st)
	}
	if st.Usage != res.Usage || res.Usage.InputTokens == 0 {
		t.Fatalf("usage: state %+v, result %+v", st.Usage, res.Usage)
	}
	if len(l.all()) != 0 {
		t.Fatalf("ran before approval: %v", l.all())
	}
}

func TestPause_ApprovalHandlerThatDefersPauses(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	rc := hitlContext(helikon.WithApprovalHandler(deferAll{}))
	st, _ := pauseOnce(t, agent, rc)
	res, err := resume(t, agent, rc, st, helikon.Approve(st.Pending[0].ID))
	if err != nil || res.FinalOutput != "done" || !slicesEqual(l.all(), []string{"remove a.tmp"}) {
		t.Fatalf("resume: %v %q ran %v", err, res.FinalOutput, l.all())
	}
}

type deferAll struct{}

func (deferAll) Decide(context.Context, helikon.PermissionRequest, string) helikon.ApprovalOutcome {
	return helikon.ApprovalOutcome{Defer: true}
}

// Each decision kind, on a single agent: what runs, what the model sees.
func TestResume_DecisionKindsOnASingleAgent(t *testing.T) {
	tests := []struct {
		name     string
		decide   func(id string) helikon.Decision
		opts     []helikon.ContextOption
		wantRuns []string
		// wantResult is in the tool result the model sees for c1.
		wantResult string
		wantError  bool
	}{
		{"approve runs the call as asked", helikon.Approve, nil, []string{"remove a.tmp"}, "removed a.tmp", false},
		{"approve with args runs the replaced call", func(id string) helikon.Decision {
			return helikon.ApproveWithArgs(id, json.RawMessage(`{"path":"b.tmp"}`))
		}, nil, []string{"remove b.tmp"}, "removed b.tmp", false},
		{"replaced args pass the deny rules again", func(id string) helikon.Decision {
			return helikon.ApproveWithArgs(id, json.RawMessage(`{"path":"secrets.env"}`))
		}, []helikon.ContextOption{governance.WithDenyRules(governance.DenyTool("remove"))}, nil, "permission denied: deny rule remove", true},
		{"reject shows the model the message", func(id string) helikon.Decision {
			return helikon.Reject(id, "keep a.tmp, it is the audit log")
		}, nil, nil, "rejected by the user: keep a.tmp, it is the audit log", true},
		{"always runs the call", func(id string) helikon.Decision {
			return helikon.Always(id, "", helikon.ScopeRun)
		}, nil, []string{"remove a.tmp"}, "removed a.tmp", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ledger{}
			m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
			agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
			st, _ := pauseOnce(t, agent, hitlContext())
			res, err := resume(t, agent, hitlContext(tt.opts...), st, tt.decide(st.Pending[0].ID))
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if res.FinalOutput != "done" {
				t.Fatalf("final = %q", res.FinalOutput)
			}
			if !slicesEqual(l.all(), tt.wantRuns) {
				t.Fatalf("ran %v, want %v", l.all(), tt.wantRuns)
			}
			r := findResult(t, res.Events, "c1")
			if r.IsError != tt.wantError || !strings.Contains(resultText(r), tt.wantResult) {
				t.Fatalf("result = %+v, want %q", r, tt.wantResult)
			}
			// The model's next turn sees the whole conversation: the call
			// and its result.
			last := m.Requests()[len(m.Requests())-1]
			if !strings.Contains(lastToolText(last), tt.wantResult) {
				t.Fatalf("model saw %q", lastToolText(last))
			}
		})
	}
}

func resultText(r helikon.ToolResultPart) string {
	var b strings.Builder
	for _, p := range r.Content {
		if t, ok := p.(helikon.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func lastToolText(req *helikon.ModelRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, p := range req.Messages[i].Content {
			if r, ok := p.(helikon.ToolResultPart); ok {
				return resultText(r)
			}
		}
	}
	return ""
}

func TestResume_AlwaysAllowsLaterMatchingCallsWithoutAsking(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(
		mock.ToolCalls(removeCall("c1", "a.tmp")),
		mock.ToolCalls(removeCall("c2", "b.tmp")),
		mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	res, err := resume(t, agent, hitlContext(), st, helikon.Always(st.Pending[0].ID, "remove", helikon.ScopeRun))
	if err != nil {
		t.Fatalf("resume: %v (events %v)", err, typesOf(res.Events))
	}
	if !slicesEqual(l.all(), []string{"remove a.tmp", "remove b.tmp"}) || len(eventsOf[helikon.ApprovalRequested](res)) != 0 {
		t.Fatalf("ran %v, events %v", l.all(), typesOf(res.Events))
	}
}

func TestResume_SettledCallsOfThePausedRoundRunOnce(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c0", Name: "list", Args: `{"path":"."}`}, removeCall("c1", "a.tmp"), removeCall("c2", "b.tmp")),
		mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	if len(st.Pending) != 2 || !slicesEqual(l.all(), []string{"list ."}) {
		t.Fatalf("pending %+v, ran %v", st.Pending, l.all())
	}
	byCall := map[string]string{}
	for _, p := range st.Pending {
		byCall[p.CallID] = p.ID
	}
	// Decide only c1: the run does what it can and pauses again on c2,
	// with the same approval id.
	res, err := resume(t, agent, hitlContext(), st, helikon.Approve(byCall["c1"]))
	var pe *helikon.PausedError
	if !errors.As(err, &pe) {
		t.Fatalf("resume with a missing decision: %v", err)
	}
	again := roundTrip(t, pe.State)
	if len(again.Pending) != 1 || again.Pending[0].ID != byCall["c2"] || again.RunID != st.RunID || again.PauseID == st.PauseID {
		t.Fatalf("second pause = %+v (first %+v)", again, st)
	}
	if !slicesEqual(l.all(), []string{"list .", "remove a.tmp"}) {
		t.Fatalf("ran %v", l.all())
	}
	res, err = resume(t, agent, hitlContext(), again, helikon.Reject(byCall["c2"], "no"))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("final resume: %v %q", err, res.FinalOutput)
	}
	if !slicesEqual(l.all(), []string{"list .", "remove a.tmp"}) {
		t.Fatalf("ran %v", l.all())
	}
	// The model sees all three results, in call order.
	var ids []string
	for _, it := range m.Requests()[1].Messages {
		for _, p := range it.Content {
			if r, ok := p.(helikon.ToolResultPart); ok {
				ids = append(ids, r.CallID)
			}
		}
	}
	if !slicesEqual(ids, []string{"c0", "c1", "c2"}) {
		t.Fatalf("results = %v", ids)
	}
}

func TestResume_BadStatesAndDecisionsAreTypedErrors(t *testing.T) {
	l := &ledger{}
	agent := mustAgent(t, "cleaner", mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp"))), helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	id := st.Pending[0].ID
	other := mustAgent(t, "other", mock.Scripted(), helikon.WithTools(l.tools()...))
	tampered := roundTrip(t, st)
	tampered.Pending[0].Tool = "list"
	edited := roundTrip(t, st)
	edited.Usage.InputTokens = 0
	tests := []struct {
		name  string
		agent helikon.Agent
		rc    *helikon.RunContext
		st    *helikon.RunState
		ds    []helikon.Decision
		want  error
	}{
		{"unknown approval id", agent, nil, st, []helikon.Decision{helikon.Approve("apr_nope")}, helikon.ErrUnknownApproval},
		{"two decisions for one id", agent, nil, st, []helikon.Decision{helikon.Approve(id), helikon.Approve(id)}, helikon.ErrInvalidDecision},
		{"replaced args that are not an object", agent, nil, st, []helikon.Decision{helikon.ApproveWithArgs(id, json.RawMessage(`[1]`))}, helikon.ErrInvalidDecision},
		{"unknown decision kind", agent, nil, st, []helikon.Decision{{ID: id, Kind: "maybe"}}, helikon.ErrInvalidDecision},
		{"an always rule that does not parse", agent, nil, st, []helikon.Decision{helikon.Always(id, "Bash(", helikon.ScopeRun)}, helikon.ErrInvalidDecision},
		{"an edited pending call", agent, nil, tampered, []helikon.Decision{helikon.Approve(id)}, helikon.ErrRunStateTampered},
		{"an edited usage", agent, nil, edited, nil, helikon.ErrRunStateTampered},
		{"a signed run's key missing from a checksummed state", agent, helikon.NewRunContext(helikon.WithRunStateKey([]byte("k"))), st, nil, helikon.ErrRunStateTampered},
		{"another agent", other, nil, st, nil, helikon.ErrNotResumable},
		{"no state", agent, nil, nil, nil, helikon.ErrNotResumable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := helikon.Collect(helikon.Resume(context.Background(), tt.agent, tt.rc, tt.st, tt.ds))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if len(res.Events) != 1 || len(l.all()) != 0 {
				t.Fatalf("events %v, ran %v", typesOf(res.Events), l.all())
			}
		})
	}
}

func TestRunState_NewerVersionIsATypedError(t *testing.T) {
	l := &ledger{}
	agent := mustAgent(t, "cleaner", mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp"))), helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	data, _ := json.Marshal(st)
	data = []byte(strings.Replace(string(data), `"version":1`, `"version":2`, 1))
	_, err := helikon.UnmarshalRunState(data)
	var ve *helikon.RunStateVersionError
	if !errors.As(err, &ve) || ve.Version != 2 || !errors.Is(err, helikon.ErrRunStateVersion) {
		t.Fatalf("err = %v", err)
	}
	for _, bad := range []string{`{}`, `{"version":1}`, `not json`, `{"version":"1"}`} {
		if _, err := helikon.UnmarshalRunState([]byte(bad)); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

func TestRunState_SignedWithAKeyResumesOnlyWithThatKey(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	key := helikon.WithRunStateKey([]byte("a 32-byte secret for the run key"))
	st, _ := pauseOnce(t, agent, hitlContext(key))
	if !strings.HasPrefix(st.Checksum, "hmac-sha256:") {
		t.Fatalf("checksum = %q", st.Checksum)
	}
	if _, err := resume(t, agent, hitlContext(helikon.WithRunStateKey([]byte("another key"))), st, helikon.Approve(st.Pending[0].ID)); !errors.Is(err, helikon.ErrRunStateTampered) {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := resume(t, agent, hitlContext(), st, helikon.Approve(st.Pending[0].ID)); !errors.Is(err, helikon.ErrRunStateTampered) {
		t.Fatalf("no key: %v", err)
	}
	res, err := resume(t, agent, hitlContext(key), st, helikon.Approve(st.Pending[0].ID))
	if err != nil || res.FinalOutput != "done" || len(l.all()) != 1 {
		t.Fatalf("right key: %v %q %v", err, res.FinalOutput, l.all())
	}
}

func TestRunPaused_RoundTripsAsAnEvent(t *testing.T) {
	l := &ledger{}
	agent := mustAgent(t, "cleaner", mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp"))), helikon.WithTools(l.tools()...))
	_, res := pauseOnce(t, agent, hitlContext())
	ev := res.Events[len(res.Events)-1]
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := helikon.UnmarshalEvent(data)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := back.(helikon.RunPaused)
	if !ok || p.State == nil || p.State.Pending[0].ID != ev.(helikon.RunPaused).State.Pending[0].ID {
		t.Fatalf("decoded %T %+v", back, back)
	}
}

// Replaced arguments pass the deny and guard rules again: a guard's Deny
// refuses them, a guard's Ask is answered by the decision itself.
func TestResume_ReplacedArgsPassTheGuardsAgain(t *testing.T) {
	guards := governance.WithGuardRules(
		governance.GuardRule{Name: "no-secrets", Action: governance.GuardDeny, Call: func(r helikon.PermissionRequest) bool {
			return strings.Contains(string(r.Args), "secrets")
		}},
		governance.GuardRule{Name: "ask-logs", Action: governance.GuardAsk, Call: func(r helikon.PermissionRequest) bool {
			return strings.Contains(string(r.Args), ".log")
		}},
	)
	tests := []struct {
		name, path string
		runs       []string
		result     string
	}{
		{"a guard's deny refuses the new arguments", "secrets.env", nil, "permission denied: guard no-secrets"},
		{"a guard's ask is answered by the decision", "old.log", []string{"remove old.log"}, "removed old.log"},
		{"arguments no rule matches run", "c.tmp", []string{"remove c.tmp"}, "removed c.tmp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ledger{}
			agent := mustAgent(t, "cleaner", mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done")), helikon.WithTools(l.tools()...))
			st, _ := pauseOnce(t, agent, hitlContext(guards))
			res, err := resume(t, agent, hitlContext(guards), st,
				helikon.ApproveWithArgs(st.Pending[0].ID, json.RawMessage(`{"path":"`+tt.path+`"}`)))
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if !slicesEqual(l.all(), tt.runs) || !strings.Contains(resultText(findResult(t, res.Events, "c1")), tt.result) {
				t.Fatalf("ran %v, result %+v", l.all(), findResult(t, res.Events, "c1"))
			}
		})
	}
}

// An "always" rule granted on resume also decides the other calls of the
// same pause it allows.
func TestResume_AnAlwaysRuleCoversTheOtherCallsItAllows(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp"), removeCall("c2", "b.tmp")), mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	if len(st.Pending) != 2 {
		t.Fatalf("pending = %+v", st.Pending)
	}
	res, err := resume(t, agent, hitlContext(), st, helikon.Always(st.Pending[0].ID, "remove", helikon.ScopeRun))
	if err != nil || res.FinalOutput != "done" || len(l.all()) != 2 {
		t.Fatalf("resume: %v, ran %v", err, l.all())
	}
}

// The request a human sees is redacted of secrets; the call, once
// approved, runs with the real arguments.
func TestApprovalRequested_ArgsAreRedactedButTheCallGetsThemWhole(t *testing.T) {
	var got string
	login := helikon.MustTool("remove", "Delete with a token.", func(_ *helikon.ToolContext, in struct {
		Path  string `json:"path" jsonschema:"path"`
		Token string `json:"api_token" jsonschema:"token"`
	}) (string, error) {
		got = in.Token
		return "ok", nil
	})
	call := mock.Call{ID: "c1", Name: "remove", Args: `{"path":"a.tmp","api_token":"tok-1234567890abcdef"}`}
	agent := mustAgent(t, "cleaner", mock.Scripted(mock.ToolCalls(call), mock.Text("done")), helikon.WithTools(login))
	st, res := pauseOnce(t, agent, hitlContext())
	shown := string(eventsOf[helikon.ApprovalRequested](res)[0].Args) + string(st.Pending[0].Args)
	if strings.Contains(shown, "tok-1234567890abcdef") || !strings.Contains(shown, "***") {
		t.Fatalf("shown to the human: %s", shown)
	}
	if _, err := resume(t, agent, hitlContext(), st, helikon.Approve(st.Pending[0].ID)); err != nil || got != "tok-1234567890abcdef" {
		t.Fatalf("resume: %v, tool got %q", err, got)
	}
}

// A budget counts what the run spent before the pause: a resumed run that
// would cross it fails as the uninterrupted run would.
func TestResume_TheBudgetCountsTheSpendBeforeThePause(t *testing.T) {
	l := &ledger{}
	m := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.ToolCalls(removeCall("c2", "b.tmp")), mock.Text("done"))
	agent := mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
	st, _ := pauseOnce(t, agent, hitlContext())
	// Every turn spends the same; a budget of two turns is spent once the
	// resumed run's first turn ends, so the third turn never starts. A
	// meter that forgot the first turn would let the run complete.
	budget := helikon.WithBudget(helikon.Budget{MaxTokens: 2 * st.Usage.Total()})
	_, err := resume(t, agent, hitlContext(budget, governance.WithAllowRules(governance.AllowTool("remove"))), st, helikon.Approve(st.Pending[0].ID))
	if !errors.Is(err, helikon.ErrBudgetExceeded) {
		t.Fatalf("err = %v, want the budget exceeded", err)
	}
}
