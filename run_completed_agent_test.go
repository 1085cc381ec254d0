package helikon_test

import (
	"context"
	"github.com/paigasus/helikon/workflow"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestRunCompleted_AgentIsTheAgentThatAnswered pins RunCompleted.Agent to the
// agent whose output ended the run, the same as RunResult.LastAgent, for
// every pattern that can hand the answer to another agent.
func TestRunCompleted_AgentIsTheAgentThatAnswered(t *testing.T) {
	cases := []struct {
		name  string
		agent func(t *testing.T) helikon.Agent
		want  string
	}{
		{"plain agent", func(t *testing.T) helikon.Agent {
			return answerer(t, "solo", "hi")
		}, "solo"},
		{"handoff", func(t *testing.T) helikon.Agent {
			target := answerer(t, "investing", "Index funds.", helikon.WithDescription("Investing."))
			return mustAgent(t, "triage", mock.Scripted(transfer("investing")), helikon.WithHandoffs(helikon.HandoffTo(target)))
		}, "investing"},
		{"handoff chain", func(t *testing.T) helikon.Agent {
			last := answerer(t, "tax", "File in April.", helikon.WithDescription("Tax."))
			mid := mustAgent(t, "budgeting", mock.Scripted(transfer("tax")), helikon.WithDescription("Budgets."),
				helikon.WithHandoffs(helikon.HandoffTo(last)))
			return mustAgent(t, "triage", mock.Scripted(transfer("budgeting")), helikon.WithHandoffs(helikon.HandoffTo(mid)))
		}, "tax"},
		{"sequential", func(t *testing.T) helikon.Agent {
			s, err := workflow.NewSequential("pipe", workflow.Step(answerer(t, "research", "notes")), workflow.Step(answerer(t, "writer", "brief")))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, "writer"},
		{"swarm", func(t *testing.T) helikon.Agent {
			triage := mustAgent(t, "triage", mock.Scripted(transfer("investing")))
			investing := mustAgent(t, "investing", mock.Scripted(mock.Text("Index funds.")), helikon.WithDescription("Investing."))
			s, err := workflow.NewSwarm("support", workflow.Members(triage, investing))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, "investing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := helikon.Collect(c.agent(t).Run(context.Background(), nil, helikon.UserText("q")))
			if err != nil {
				t.Fatal(err)
			}
			done := res.Events[len(res.Events)-1].(helikon.RunCompleted)
			if done.Agent != c.want || res.LastAgent != c.want {
				t.Errorf("RunCompleted.Agent = %q, LastAgent = %q; want both %q", done.Agent, res.LastAgent, c.want)
			}
		})
	}
}
