package workflow_test

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/workflow"
)

// TestWorkflow_AFanOutsRunStartedSaysHowManyEventsItSends checks the hint
// of a parallel and a graph agent's RunStarted against what a run of
// one-turn LLM children sends, so that Collect keeps them in one array.
func TestWorkflow_AFanOutsRunStartedSaysHowManyEventsItSends(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent func() (helikon.Agent, error)
	}{
		{"parallel of three", func() (helikon.Agent, error) {
			return workflow.NewParallel("p", workflow.Step(answerer(t, "a", "x")), workflow.Step(answerer(t, "b", "y")), workflow.Step(answerer(t, "c", "z")))
		}},
		{"diamond graph", func() (helikon.Agent, error) {
			return diamond(answerer(t, "top", "1"), answerer(t, "left", "2"), answerer(t, "right", "3"), answerer(t, "bottom", "4"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.agent()
			if err != nil {
				t.Fatal(err)
			}
			res, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			s, ok := res.Events[0].(helikon.RunStarted)
			if !ok || s.Events != len(res.Events) || cap(res.Events) != len(res.Events) {
				t.Errorf("RunStarted %+v, %d events in room for %d: want the hint to be the count and the room", res.Events[0], len(res.Events), cap(res.Events))
			}
		})
	}
}
