package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/workflow"
	"iter"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// pauseSite builds an agent in which a "cleaner" agent, somewhere inside,
// asks to remove a.tmp and then answers "done".
type pauseSite struct {
	name string
	// build returns the top-level agent; cleaner is the mock model of the
	// agent whose call pauses.
	build func(t *testing.T, l *ledger, cleaner *mock.Model) helikon.Agent
	path  []string
	// final is the top-level run's final output.
	final string
}

func cleanerAgent(t *testing.T, l *ledger, m *mock.Model) *helikon.LLMAgent {
	return mustAgent(t, "cleaner", m, helikon.WithTools(l.tools()...))
}

// textAgent answers text once; a second run would find its script spent
// and fail, so a step that ran twice shows.
func textAgent(t *testing.T, name, text string) *helikon.LLMAgent {
	return mustAgent(t, name, mock.Scripted(mock.Text(text)))
}

var pauseSites = []pauseSite{
	{"single agent", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		return cleanerAgent(t, l, m)
	}, []string{"cleaner"}, "done"},
	{"handoff target", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		return mustAgent(t, "router", mock.Scripted(mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_cleaner", Args: `{}`})),
			helikon.WithHandoffs(helikon.HandoffTo(cleanerAgent(t, l, m))))
	}, []string{"router", "cleaner"}, "done"},
	{"agent as tool", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		tool, err := helikon.AgentAsTool(cleanerAgent(t, l, m))
		if err != nil {
			t.Fatal(err)
		}
		return mustAgent(t, "lead", mock.Scripted(mock.ToolCalls(mock.Call{ID: "t1", Name: "cleaner", Args: `{"input":"clean"}`}), mock.Text("lead done")),
			helikon.WithTools(tool))
	}, []string{"lead", "cleaner"}, "lead done"},
	{"sequential step", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		seq, err := workflow.NewSequential("pipeline", workflow.Step(textAgent(t, "lister", "listed")), workflow.Step(cleanerAgent(t, l, m)),
			workflow.Step(textAgent(t, "reporter", "reported")))
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}, []string{"pipeline", "cleaner"}, "reported"},
	{"parallel branch", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		par, err := workflow.NewParallel("fan", workflow.Step(textAgent(t, "lister", "listed")), workflow.Step(cleanerAgent(t, l, m)))
		if err != nil {
			t.Fatal(err)
		}
		return par
	}, []string{"fan", "cleaner"}, `{"cleaner":"done","lister":"listed"}`},
	{"graph node", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		g, err := workflow.NewGraph("dag",
			workflow.Node("lister", textAgent(t, "lister", "listed")),
			workflow.Node("cleaner", cleanerAgent(t, l, m)),
			workflow.Node("auditor", textAgent(t, "auditor", "audited")),
			workflow.Node("reporter", textAgent(t, "reporter", "reported")),
			workflow.Edge("lister", "cleaner"), workflow.Edge("cleaner", "reporter"))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}, []string{"dag", "cleaner"}, `{"auditor":"audited","reporter":"reported"}`},
	{"loop step", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		loop, err := workflow.NewLoop("sweep", 1, workflow.Step(cleanerAgent(t, l, m)), workflow.Step(escalator(t)))
		if err != nil {
			t.Fatal(err)
		}
		return loop
	}, []string{"sweep", "cleaner"}, "escalated"},
	{"swarm member", func(t *testing.T, l *ledger, m *mock.Model) helikon.Agent {
		triage := mustAgent(t, "triage", mock.Scripted(mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_cleaner", Args: `{}`})))
		sw, err := workflow.NewSwarm("team", workflow.Members(triage, cleanerAgent(t, l, m)))
		if err != nil {
			t.Fatal(err)
		}
		return sw
	}, []string{"team", "triage", "cleaner"}, "done"},
}

// escalator calls a tool that escalates, ending an enclosing loop.
func escalator(t *testing.T) *helikon.LLMAgent {
	stop := helikon.MustTool("stop", "End the loop.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		tc.Actions().Escalate()
		return "stopping", nil
	})
	return mustAgent(t, "escalator", mock.Scripted(mock.ToolCalls(mock.Call{ID: "s1", Name: "stop", Args: `{}`}), mock.Text("escalated")),
		helikon.WithTools(stop))
}

var decisionCases = []struct {
	name   string
	decide func(id string) helikon.Decision
	runs   []string
	// seen is in the result the cleaner's model gets for its call.
	seen string
}{
	{"approve", helikon.Approve, []string{"remove a.tmp"}, "removed a.tmp"},
	{"approve with args", func(id string) helikon.Decision {
		return helikon.ApproveWithArgs(id, json.RawMessage(`{"path":"b.tmp"}`))
	}, []string{"remove b.tmp"}, "removed b.tmp"},
	{"reject", func(id string) helikon.Decision { return helikon.Reject(id, "not today") }, nil, "rejected by the user: not today"},
	{"always", func(id string) helikon.Decision { return helikon.Always(id, "", helikon.ScopeRun) }, []string{"remove a.tmp"}, "removed a.tmp"},
}

// Every decision kind at every place a pause can happen: the run pauses
// with the agent path, survives a JSON round trip, resumes to the same end
// an uninterrupted run would reach, and the decided call runs at most once.
func TestResume_EveryDecisionKindAtEveryPauseSite(t *testing.T) {
	for _, site := range pauseSites {
		for _, dc := range decisionCases {
			t.Run(site.name+"/"+dc.name, func(t *testing.T) {
				l := &ledger{}
				cleaner := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
				agent := site.build(t, l, cleaner)
				st, _ := pauseOnce(t, agent, hitlContext())
				if len(st.Pending) != 1 || !slicesEqual(st.Pending[0].Path, site.path) || st.Pending[0].Agent != "cleaner" || st.Agent != agent.Name() {
					t.Fatalf("state = %+v pending %+v", st, st.Pending)
				}
				res, err := resume(t, agent, hitlContext(), st, dc.decide(st.Pending[0].ID))
				if err != nil {
					t.Fatalf("resume: %v\nevents %v", err, typesOf(res.Events))
				}
				if res.FinalOutput != site.final {
					t.Errorf("final = %q, want %q", res.FinalOutput, site.final)
				}
				if !slicesEqual(l.all(), dc.runs) {
					t.Errorf("ran %v, want %v", l.all(), dc.runs)
				}
				reqs := cleaner.Requests()
				if got := lastToolText(reqs[len(reqs)-1]); !strings.Contains(got, dc.seen) {
					t.Errorf("cleaner's model saw %q, want %q", got, dc.seen)
				}
				if res.Usage.InputTokens <= st.Usage.InputTokens {
					t.Errorf("usage after resume %+v does not extend usage at pause %+v", res.Usage, st.Usage)
				}
			})
		}
	}
}

// A call left undecided keeps the run paused at every site, under the same
// approval id, and nothing that ran runs again.
func TestResume_AMissingDecisionKeepsEverySitePaused(t *testing.T) {
	for _, site := range pauseSites {
		t.Run(site.name, func(t *testing.T) {
			l := &ledger{}
			cleaner := mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done"))
			agent := site.build(t, l, cleaner)
			st, _ := pauseOnce(t, agent, hitlContext())
			_, err := resume(t, agent, hitlContext(), st)
			var pe *helikon.PausedError
			if !errors.As(err, &pe) {
				t.Fatalf("resume without decisions: %v", err)
			}
			again := roundTrip(t, pe.State)
			if len(again.Pending) != 1 || again.Pending[0].ID != st.Pending[0].ID || again.RunID != st.RunID {
				t.Fatalf("second pause %+v, first %+v", again.Pending, st.Pending)
			}
			res, err := resume(t, agent, hitlContext(), again, helikon.Approve(again.Pending[0].ID))
			if err != nil || res.FinalOutput != site.final || !slicesEqual(l.all(), []string{"remove a.tmp"}) {
				t.Fatalf("final resume: %v %q ran %v", err, res.FinalOutput, l.all())
			}
		})
	}
}

// Two branches of a parallel workflow pause at once; one decision resumes
// one of them and the workflow pauses again on the other.
func TestParallel_TwoPausedBranchesResumeIndependently(t *testing.T) {
	l := &ledger{}
	a := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("a done")), helikon.WithTools(l.tools()...))
	b := mustAgent(t, "b", mock.Scripted(mock.ToolCalls(removeCall("c1", "b.tmp")), mock.Text("b done")), helikon.WithTools(l.tools()...))
	par, err := workflow.NewParallel("fan", workflow.Step(a), workflow.Step(b), workflow.Step(textAgent(t, "c", "c done")))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := pauseOnce(t, par, hitlContext())
	if len(st.Pending) != 2 {
		t.Fatalf("pending = %+v", st.Pending)
	}
	byAgent := map[string]string{}
	for _, p := range st.Pending {
		byAgent[p.Agent] = p.ID
	}
	_, err = resume(t, par, hitlContext(), st, helikon.Approve(byAgent["a"]))
	var pe *helikon.PausedError
	if !errors.As(err, &pe) || len(pe.State.Pending) != 1 || pe.State.Pending[0].ID != byAgent["b"] {
		t.Fatalf("after one decision: %v", err)
	}
	res, err := resume(t, par, hitlContext(), roundTrip(t, pe.State), helikon.Reject(byAgent["b"], "keep it"))
	if err != nil || res.FinalOutput != `{"a":"a done","b":"b done","c":"c done"}` {
		t.Fatalf("final: %v %q", err, res.FinalOutput)
	}
	if !slicesEqual(l.all(), []string{"remove a.tmp"}) {
		t.Fatalf("ran %v", l.all())
	}
}

// A failed branch wins over a paused one: the workflow fails.
func TestParallel_AFailureWinsOverAPause(t *testing.T) {
	l := &ledger{}
	cleaner := cleanerAgent(t, l, mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done")))
	broken := mustAgent(t, "broken", mock.Scripted(mock.Fail(errors.New("provider down"))))
	par, err := workflow.NewParallel("fan", workflow.Step(cleaner), workflow.Step(broken))
	if err != nil {
		t.Fatal(err)
	}
	_, err = helikon.Collect(par.Run(context.Background(), hitlContext(), helikon.UserText("go")))
	var we *workflow.WorkflowError
	if !errors.As(err, &we) || len(we.Failed) != 1 || we.Failed[0].Key != "broken" {
		t.Fatalf("err = %v", err)
	}
}

// A custom agent may forward a member's pause, and a workflow around it
// pauses, but only this package's agents resume: the resume fails before
// anything runs.
func TestResume_ACustomAgentThatForwardsAPauseIsNotResumable(t *testing.T) {
	l := &ledger{}
	cleaner := cleanerAgent(t, l, mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done")))
	custom := agentFunc("custom", func(ctx context.Context, yield func(helikon.Event) bool) {
		for ev := range cleaner.Run(ctx, hitlContext().Child(), helikon.UserText("go")) {
			if !yield(ev) {
				return
			}
		}
	})
	seq, err := workflow.NewSequential("pipeline", workflow.Step(custom))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := pauseOnce(t, seq, hitlContext())
	_, err = resume(t, seq, hitlContext(), st, helikon.Approve(st.Pending[0].ID))
	if !errors.Is(err, helikon.ErrNotResumable) || len(l.all()) != 0 {
		t.Fatalf("err = %v, ran %v", err, l.all())
	}
}

type approveAll struct{}

func (approveAll) Decide(context.Context, helikon.PermissionRequest, string) helikon.ApprovalOutcome {
	return helikon.ApprovalOutcome{Allow: true}
}

// A paused and resumed run reports the same total usage as the same run
// approved inline: nothing spent before the pause is lost or counted twice.
func TestResume_UsageMatchesAnUninterruptedRunAtEverySite(t *testing.T) {
	for _, site := range pauseSites {
		t.Run(site.name, func(t *testing.T) {
			inline := site.build(t, &ledger{}, mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done")))
			want, err := helikon.Collect(inline.Run(context.Background(), hitlContext(helikon.WithApprovalHandler(approveAll{})), helikon.UserText("clean up")))
			if err != nil {
				t.Fatal(err)
			}
			agent := site.build(t, &ledger{}, mock.Scripted(mock.ToolCalls(removeCall("c1", "a.tmp")), mock.Text("done")))
			st, _ := pauseOnce(t, agent, hitlContext())
			got, err := resume(t, agent, hitlContext(), st, helikon.Approve(st.Pending[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			if got.Usage != want.Usage {
				t.Fatalf("usage after resume %+v, uninterrupted %+v (at pause %+v)", got.Usage, want.Usage, st.Usage)
			}
		})
	}
}

// An agent tool that finished before the pause, in the paused round, keeps
// its usage in the resumed run's total.
func TestResume_UsageOfAnAgentToolThatFinishedBeforeThePauseIsKept(t *testing.T) {
	build := func(l *ledger) helikon.Agent {
		lister, err := helikon.AgentAsTool(textAgent(t, "lister", "listed"))
		if err != nil {
			t.Fatal(err)
		}
		m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "t1", Name: "lister", Args: `{"input":"list"}`}, removeCall("c1", "a.tmp")), mock.Text("done"))
		return mustAgent(t, "cleaner", m, helikon.WithTools(append(l.tools(), lister)...))
	}
	want, err := helikon.Collect(build(&ledger{}).Run(context.Background(), hitlContext(helikon.WithApprovalHandler(approveAll{})), helikon.UserText("clean up")))
	if err != nil {
		t.Fatal(err)
	}
	agent := build(&ledger{})
	st, _ := pauseOnce(t, agent, hitlContext())
	got, err := resume(t, agent, hitlContext(), st, helikon.Approve(st.Pending[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	if got.Usage != want.Usage || st.Usage.InputTokens <= 10 {
		t.Fatalf("usage after resume %+v, uninterrupted %+v (at pause %+v)", got.Usage, want.Usage, st.Usage)
	}
}

// funcAgent is an Agent whose run is a function, for tests that need a
// sub-agent the model cannot express.
type funcAgent struct {
	name string
	run  func(ctx context.Context, yield func(helikon.Event) bool)
}

func agentFunc(name string, run func(ctx context.Context, yield func(helikon.Event) bool)) helikon.Agent {
	return &funcAgent{name: name, run: run}
}

func (a *funcAgent) Name() string        { return a.name }
func (a *funcAgent) Description() string { return "" }
func (a *funcAgent) Run(ctx context.Context, _ *helikon.RunContext, _ []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) { a.run(ctx, yield) }
}
