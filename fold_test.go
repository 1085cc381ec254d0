package helikon_test

import (
	"context"
	"iter"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// passThrough is an agent that runs inner on the context it is given and
// passes inner's stream on as it is.
type passThrough struct{ inner helikon.Agent }

func (p passThrough) Name() string        { return "wrapper" }
func (p passThrough) Description() string { return "" }
func (p passThrough) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return p.inner.Run(ctx, rc, input)
}

// foldedRun runs agent on a child context of a fresh run folded into a
// new outcome for folded (FoldInto), feeding every event to the outcome as
// a parent does, and returns how many RunStarted and RunCompleted the run
// sent, and the outcome.
func foldedRun(t *testing.T, agent, folded helikon.Agent, derive func(*helikon.RunContext) *helikon.RunContext) (started, completed int, o helikon.ChildOutcome) {
	t.Helper()
	cs := helikon.NewRunContext().Children(1)
	cs[0].FoldInto(folded, &o)
	for ev := range agent.Run(context.Background(), derive(&cs[0]), helikon.UserText("go")) {
		if _, ok := ev.(helikon.RunStarted); ok {
			started++
		} else if _, ok := ev.(helikon.RunCompleted); ok {
			completed++
		}
		o.See(ev)
	}
	o.End(agent.Name())
	return started, completed, o
}

// TestRunContext_FoldIntoSettlesAnLLMRunsStartAndEndInTheOutcome pins
// FoldInto: an LLM agent run on the folded context sends neither
// RunStarted nor RunCompleted and leaves the outcome See would have made
// of them (usage, agent, finished); an agent that is not the one named,
// even one passing the named agent's stream on, and a run on a context
// derived from the folded one, send both, and See folds them alike.
func TestRunContext_FoldIntoSettlesAnLLMRunsStartAndEndInTheOutcome(t *testing.T) {
	newAgent := func() *helikon.LLMAgent {
		a, err := helikon.NewAgent("a", mock.Scripted(mock.Text("hi")))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	same := func(rc *helikon.RunContext) *helikon.RunContext { return rc }
	want := helikon.ChildOutcome{Final: "hi", Agent: "a", Usage: helikon.Usage{InputTokens: 10, OutputTokens: 5}, Finished: true}
	self := func(ag helikon.Agent) helikon.Agent { return ag }
	other := func(helikon.Agent) helikon.Agent { return newAgent() }
	llm := func() helikon.Agent { return newAgent() }
	for _, tc := range []struct {
		name   string
		agent  func() helikon.Agent
		folded func(helikon.Agent) helikon.Agent
		derive func(*helikon.RunContext) *helikon.RunContext
		events int // RunStarted and RunCompleted each sent this often
	}{
		{"the agent named", llm, self, same, 0},
		{"another agent", llm, other, same, 1},
		{"a wrapper named, running an LLM agent", func() helikon.Agent { return passThrough{newAgent()} }, self, same, 1},
		{"a child context", llm, self, (*helikon.RunContext).Child, 1},
		{"a derived context", llm, self, func(rc *helikon.RunContext) *helikon.RunContext { return rc.Derive() }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ag := tc.agent()
			started, completed, o := foldedRun(t, ag, tc.folded(ag), tc.derive)
			if started != tc.events || completed != tc.events {
				t.Errorf("RunStarted sent %d times, RunCompleted %d: want %d each", started, completed, tc.events)
			}
			o.Content = nil
			if o.Final != want.Final || o.Agent != want.Agent || o.Usage != want.Usage || !o.Finished || o.Err != nil || o.Structured {
				t.Errorf("outcome %+v, want %+v", o, want)
			}
		})
	}
}
