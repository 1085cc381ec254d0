package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// runInEnv runs one durable run in the SDK's test environment, with every
// payload through the default data converter (unless a setup function
// sets another), and returns its result and the events the events query
// reports. The setup functions prepare the environment (listeners, a data
// converter) before the run.
func runInEnv(t *testing.T, cfg workerConfig, in runInput, setup ...func(*testsuite.TestWorkflowEnvironment)) (runOutput, []helikon.Event, error) {
	t.Helper()
	env := newTestEnv()
	for _, f := range setup {
		f(env)
	}
	reg, err := newRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.timeouts.model == 0 {
		cfg.timeouts = stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout, toolAttempts: cfg.timeouts.toolAttempts, local: cfg.timeouts.local, localModel: cfg.timeouts.localModel}
	}
	register(env, reg, cfg.timeouts)
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		return runOutput{}, nil, err
	}
	var out runOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	p := queryEvents(t, env)
	if p.Next != out.Events || len(p.Events) != out.Events {
		t.Fatalf("query returned %d events (next %d), result counts %d", len(p.Events), p.Next, out.Events)
	}
	return out, p.Events, nil
}

// queryEvents reads all the events of the workflow env runs.
func queryEvents(t *testing.T, env *testsuite.TestWorkflowEnvironment) eventPage {
	t.Helper()
	v, err := env.QueryWorkflow(EventsQuery, 0)
	if err != nil {
		t.Fatal(err)
	}
	var p eventPage
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWorkflow_YieldsTheInProcessLoopsEvents(t *testing.T) {
	for _, mode := range []stepMode{modeActivities, modeLocalModel, modeLocal} {
		for _, sc := range scenarios() {
			t.Run(fmt.Sprintf("%s, %s", sc.name, mode), func(t *testing.T) {
				testWorkflowScenario(t, sc, mode)
			})
		}
	}
}

// options are the worker options of the mode.
func (m stepMode) options() []WorkerOption {
	switch m {
	case modeLocalModel:
		return []WorkerOption{WithLocalModelCalls()}
	case modeLocal:
		return []WorkerOption{WithLocalActivities()}
	}
	return nil
}

func testWorkflowScenario(t *testing.T, sc scenario, mode stepMode) {
	ref, posture := sc.build(t)
	want, wantErr := helikon.Collect(ref.Run(context.Background(), helikon.NewRunContext(posture.options(true)...), helikon.UserText("go")))

	ag, posture := sc.build(t)
	cfg := workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture}
	cfg.timeouts.local, cfg.timeouts.localModel = mode == modeLocal, mode == modeLocalModel
	out, evs, err := runInEnv(t, cfg, runInput{Agent: ag.Name(), Input: helikon.UserText("go")})
	if err != nil {
		t.Fatal(err)
	}
	checkStamped(t, evs)
	got, w := encodeAll(t, evs), encodeAll(t, settled(want.Events))
	if strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Fatalf("workflow events differ from the in-process loop's\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
	}
	if out.Output != want.FinalOutput || out.LastAgent != want.LastAgent || out.Usage != want.Usage {
		t.Fatalf("result %+v, want output %q, last agent %q, usage %+v", out, want.FinalOutput, want.LastAgent, want.Usage)
	}
	if (out.Err == nil) != (wantErr == nil) {
		t.Fatalf("result error %v, in-process error %v", out.Err, wantErr)
	}
}

func TestWorkflow_ToolCallsOfATurnRunConcurrentlyWithinTheBound(t *testing.T) {
	for _, tc := range []struct {
		parallel, want int
	}{{0, 4}, {2, 2}, {1, 1}} {
		gate := newGauge()
		tool := helikon.MustTool("slow", "Waits for its peers.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
			gate.enter()
			defer gate.leave()
			return "ok", nil
		})
		calls := make([]mock.Call, 4)
		for i := range calls {
			calls[i] = mock.Call{ID: string(rune('a' + i)), Name: "slow", Args: `{}`}
		}
		ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(calls...), mock.Text("done")),
			helikon.WithTools(tool), helikon.WithRunConfig(helikon.RunConfig{ParallelToolCalls: tc.parallel}))
		gate.want = tc.want
		out, _, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{ag}}, runInput{Agent: "a", Input: helikon.UserText("go")})
		if err != nil || out.Output != "done" {
			t.Fatalf("parallel %d: %+v %v", tc.parallel, out, err)
		}
		if gate.max != tc.want {
			t.Fatalf("parallel %d: at most %d calls ran at once, want %d", tc.parallel, gate.max, tc.want)
		}
	}
}

func TestWorkflow_BadSeedFailsFastWithAClearError(t *testing.T) {
	ag := mustAgent(t, "a", mock.Scripted(mock.Text("never")))
	factory := func(_ context.Context, seed json.RawMessage) (any, error) {
		var s struct {
			Tenant string `json:"tenant"`
		}
		if err := json.Unmarshal(seed, &s); err != nil || s.Tenant == "" {
			return nil, errors.New("seed needs a tenant")
		}
		return s, nil
	}
	out, evs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{ag}, factory: factory}, runInput{Agent: "a", Input: helikon.UserText("go"), Seed: json.RawMessage(`{"tenant":""}`)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Err == nil || out.Err.Kind != helikon.KindConfig || !strings.Contains(out.Err.Message, "bad run seed: seed needs a tenant") {
		t.Fatalf("error %+v, want a config error naming the bad seed", out.Err)
	}
	if len(evs) != 1 {
		t.Fatalf("events %v, want only the failure", evs)
	}
}

func TestWorkflow_UnknownAgentFailsTheRun(t *testing.T) {
	ag := mustAgent(t, "a", mock.Scripted(mock.Text("never")))
	out, _, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{ag}}, runInput{Agent: "nobody", Input: helikon.UserText("go")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Err == nil || out.Err.Kind != helikon.KindConfig || !strings.Contains(out.Err.Message, `agent is not registered on the worker: "nobody"`) {
		t.Fatalf("error %+v", out.Err)
	}
}

func TestWorkflow_SeedBecomesTheToolsUserValue(t *testing.T) {
	type tenant struct {
		Tenant string `json:"tenant"`
	}
	who := helikon.MustTool("whoami", "Names the tenant.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		v, ok := helikon.User[tenant](tc)
		if !ok {
			return "", errors.New("no tenant")
		}
		return v.Tenant, nil
	})
	ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "whoami", Args: `{}`}), mock.Text("done")), helikon.WithTools(who))
	factory := func(_ context.Context, seed json.RawMessage) (any, error) {
		var t tenant
		err := json.Unmarshal(seed, &t)
		return t, err
	}
	_, evs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{ag}, factory: factory}, runInput{Agent: "a", Input: helikon.UserText("go"), Seed: json.RawMessage(`{"tenant":"acme"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for _, ev := range evs {
		if o, ok := ev.(helikon.ToolOutputItem); ok {
			out = o.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text
		}
	}
	if out != `"acme"` {
		t.Fatalf("tool saw %s, want the seed's tenant", out)
	}
}

// gauge measures how many tool calls run at once. Each call waits (up to a
// deadlock guard) until want calls are inside, so a host that ran them one
// by one would show a maximum of one.
type gauge struct {
	mu       sync.Mutex
	cond     *sync.Cond
	cur, max int
	want     int
	released bool
}

func newGauge() *gauge {
	g := &gauge{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gauge) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cur++
	g.max = max(g.max, g.cur)
	if g.max >= g.want {
		g.cond.Broadcast()
		return
	}
	guard := time.AfterFunc(time.Second, func() {
		g.mu.Lock()
		g.released = true
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer guard.Stop()
	// max only grows, so a wave that reached want releases every waiter.
	for g.max < g.want && !g.released {
		g.cond.Wait()
	}
}

func (g *gauge) leave() {
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
}

// askPolicy asks a human about every call of the named tool.
type askPolicy string

func (p askPolicy) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Tool == string(p) {
		return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "run " + req.Tool + "?"}
	}
	return governance.PermissionDecision{}
}

// pauseScenario is a turn with two calls, one the policy asks about, then
// an answer.
func pauseScenario(t *testing.T, executions *atomic.Int32) (*helikon.LLMAgent, WorkerPosture) {
	transfer := helikon.MustTool("transfer", "Moves money.", func(_ *helikon.ToolContext, in addArgs) (string, error) {
		executions.Add(1)
		return fmt.Sprintf("moved %d", in.A), nil
	})
	ag := mustAgent(t, "bank", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, mock.Call{ID: "c2", Name: "transfer", Args: `{"a":100,"b":0}`}),
		mock.Text("done"),
	), helikon.WithTools(addTool, transfer))
	return ag, WorkerPosture{Policy: askPolicy("transfer")}
}

func TestWorkflow_PausedRunWaitsForDecisionsOrTheTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decide   func(id string) []helikon.Decision
		timeout  time.Duration
		wantRuns int32
		wantText string
	}{
		{"approved", func(id string) []helikon.Decision { return []helikon.Decision{helikon.Approve(id)} }, 0, 1, "moved 100"},
		{"approved with other arguments", func(id string) []helikon.Decision {
			return []helikon.Decision{helikon.ApproveWithArgs(id, json.RawMessage(`{"a":5,"b":0}`))}
		}, 0, 1, "moved 5"},
		{"rejected", func(id string) []helikon.Decision { return []helikon.Decision{helikon.Reject(id, "not today")} }, 0, 0, "rejected by the user: not today"},
		{"timed out", nil, time.Hour, 0, "no decision within 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var executions atomic.Int32
			ag, posture := pauseScenario(t, &executions)
			env := newTestEnv()
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
			if err != nil {
				t.Fatal(err)
			}
			register(env, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
			var updateErr error
			if tc.decide != nil {
				env.RegisterDelayedCallback(func() {
					v, err := env.QueryWorkflow(EventsQuery, 0)
					if err != nil {
						t.Error(err)
						return
					}
					var p eventPage
					_ = v.Get(&p)
					paused, ok := p.Events[len(p.Events)-1].(helikon.RunPaused)
					if !ok {
						t.Errorf("last event %T, want RunPaused", p.Events[len(p.Events)-1])
						return
					}
					if executions.Load() != 0 {
						t.Error("the call ran before its decision")
					}
					// A decision naming an unknown approval is refused and
					// changes nothing.
					env.UpdateWorkflow(DecideUpdate, "bad", &testsuite.TestUpdateCallback{
						OnReject: func(err error) {},
						OnAccept: func() { t.Error("an unknown approval id was accepted") },
					}, decideIn{PauseID: paused.State.PauseID, Decisions: []helikon.Decision{helikon.Approve("apr_nope")}})
					id := paused.State.Pending[0].ID
					env.UpdateWorkflow(DecideUpdate, "good", &testsuite.TestUpdateCallback{
						OnReject:   func(err error) { updateErr = err },
						OnAccept:   func() {},
						OnComplete: func(any, error) {},
					}, decideIn{PauseID: paused.State.PauseID, Decisions: tc.decide(id)})
				}, time.Minute)
			}
			env.ExecuteWorkflow(WorkflowName, runInput{Agent: "bank", Input: helikon.UserText("go"), ApprovalTimeout: tc.timeout})
			if err := env.GetWorkflowError(); err != nil || updateErr != nil {
				t.Fatal(err, updateErr)
			}
			var out runOutput
			_ = env.GetWorkflowResult(&out)
			if out.Output != "done" || executions.Load() != tc.wantRuns {
				t.Fatalf("output %q, transfer ran %d times, want %d", out.Output, executions.Load(), tc.wantRuns)
			}
			v, _ := env.QueryWorkflow(EventsQuery, 0)
			var p eventPage
			_ = v.Get(&p)
			var results []string
			for _, ev := range p.Events {
				if o, ok := ev.(helikon.ToolOutputItem); ok {
					results = append(results, o.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text)
				}
			}
			if len(results) != 2 || !strings.Contains(results[1], tc.wantText) {
				t.Fatalf("results %q, want the transfer's to say %q", results, tc.wantText)
			}
		})
	}
}
