package workflow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

func TestWorkflow_EveryEventButTheRawDeltasCarriesItsTime(t *testing.T) {
	p, err := workflow.NewParallel("both", workflow.Step(answerer(t, "left", "l")), workflow.Step(answerer(t, "right", "r")))
	if err != nil {
		t.Fatal(err)
	}
	seq, err := workflow.NewSequential("pipeline", workflow.Step(p), workflow.Step(answerer(t, "last", "done")))
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	res, err := helikon.Collect(seq.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	for i, ev := range res.Events {
		switch ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			continue
		}
		if at := helikon.EventTime(ev); at.Before(before) || at.After(after) {
			t.Errorf("event %d %T at %v, not within the run [%v, %v]", i, ev, at, before, after)
		}
	}
}

// A fan-out forwards the events of its LLM children without stamping them
// (they carry their times already), and stamps those of other children,
// on its goroutine or the pool's, and its own: an untimed agent's events
// carry a time in the workflow's stream whether it is a node or branch
// itself or an LLM child's handoff target, and so does a failure.
func TestWorkflow_AFanOutsEventsCarryTheirTimesWhoeverSentThem(t *testing.T) {
	// untimed answers its name after wait, with events that carry no time.
	untimed := func(name string, wait func()) helikon.Agent {
		return agentFunc(name, func(_ context.Context, yield func(helikon.Event) bool) {
			wait()
			msg := helikon.Item{Role: helikon.RoleAssistant, Agent: name, Content: []helikon.ContentPart{helikon.TextPart{Text: name}}}
			_ = yield(helikon.MessageOutput{Item: msg}) && yield(helikon.RunCompleted{Agent: name})
		})
	}
	now := func() {}
	front := func() helikon.Agent {
		return mustAgent(t, "front", mock.Scripted(transfer("target")), helikon.WithHandoffs(helikon.HandoffTo(untimed("target", now))))
	}
	failing := agentFunc("failing", func(_ context.Context, yield func(helikon.Event) bool) {
		yield(helikon.RunFailed{Err: errors.New("no")})
	})
	for _, tc := range []struct {
		name    string
		build   func() (helikon.Agent, error)
		untimed int // messages of untimed agents the stream carries
		fails   bool
	}{
		{"parallel", func() (helikon.Agent, error) {
			return workflow.NewParallel("p", workflow.Step(front()), workflow.Step(untimed("node", now)), workflow.Step(answerer(t, "llm", "x")))
		}, 2, false},
		{"graph", func() (helikon.Agent, error) {
			return workflow.NewGraph("g", workflow.Node("front", front()), workflow.Node("node", untimed("node", now)),
				workflow.Node("llm", answerer(t, "llm", "x")), workflow.Edge("front", "llm"), workflow.Edge("node", "llm"))
		}, 2, false},
		{"branches on the pool", func() (helikon.Agent, error) {
			// Each waits for the other to start: one of them runs on the pool.
			var both sync.WaitGroup
			both.Add(2)
			wait := func() { both.Done(); both.Wait() }
			return workflow.NewParallel("p", workflow.Step(untimed("a", wait)), workflow.Step(untimed("b", wait)))
		}, 2, false},
		{"failed graph", func() (helikon.Agent, error) {
			return workflow.NewGraph("g", workflow.Node("node", untimed("node", now)), workflow.Node("failing", failing), workflow.Edge("node", "failing"))
		}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			res, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("go")))
			if (err != nil) != tc.fails {
				t.Fatalf("run: %v", err)
			}
			after := time.Now()
			untimedSeen := 0
			for i, ev := range res.Events {
				switch e := ev.(type) {
				case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
					continue
				case helikon.MessageOutput:
					if _, isLLM := map[string]bool{"front": true, "llm": true, "p": true, "g": true}[e.Item.Agent]; !isLLM {
						untimedSeen++
					}
				}
				if at := helikon.EventTime(ev); at.Before(before) || at.After(after) {
					t.Errorf("event %d %T at %v, not within the run [%v, %v]", i, ev, at, before, after)
				}
			}
			if untimedSeen != tc.untimed {
				t.Errorf("%d messages of the untimed agents, want %d", untimedSeen, tc.untimed)
			}
		})
	}
}
