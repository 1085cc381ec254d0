package workflow_test

import (
	"context"
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
// (they carry their times already), and stamps those of other children:
// an untimed agent's events carry a time in the workflow's stream whether
// it is a node or branch itself or an LLM child's handoff target.
func TestWorkflow_AFanOutsEventsCarryTheirTimesWhoeverSentThem(t *testing.T) {
	untimed := func(name string) helikon.Agent {
		return agentFunc(name, func(_ context.Context, yield func(helikon.Event) bool) {
			msg := helikon.Item{Role: helikon.RoleAssistant, Agent: name, Content: []helikon.ContentPart{helikon.TextPart{Text: name}}}
			_ = yield(helikon.MessageOutput{Item: msg}) && yield(helikon.RunCompleted{Agent: name})
		})
	}
	front := func() helikon.Agent {
		return mustAgent(t, "front", mock.Scripted(transfer("target")), helikon.WithHandoffs(helikon.HandoffTo(untimed("target"))))
	}
	build := map[string]func() (helikon.Agent, error){
		"parallel": func() (helikon.Agent, error) {
			return workflow.NewParallel("p", workflow.Step(front()), workflow.Step(untimed("node")), workflow.Step(answerer(t, "llm", "x")))
		},
		"graph": func() (helikon.Agent, error) {
			return workflow.NewGraph("g", workflow.Node("front", front()), workflow.Node("node", untimed("node")),
				workflow.Node("llm", answerer(t, "llm", "x")), workflow.Edge("front", "llm"), workflow.Edge("node", "llm"))
		},
	}
	for name, b := range build {
		t.Run(name, func(t *testing.T) {
			a, err := b()
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			res, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			untimedSeen := 0
			for i, ev := range res.Events {
				switch e := ev.(type) {
				case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
					continue
				case helikon.MessageOutput:
					if e.Item.Agent == "target" || e.Item.Agent == "node" {
						untimedSeen++
					}
				}
				if at := helikon.EventTime(ev); at.Before(before) || at.After(after) {
					t.Errorf("event %d %T at %v, not within the run [%v, %v]", i, ev, at, before, after)
				}
			}
			if untimedSeen != 2 {
				t.Errorf("%d messages of the untimed agents, want 2", untimedSeen)
			}
		})
	}
}
