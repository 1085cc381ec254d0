package workflow_test

import (
	"context"
	"testing"
	"time"

	"github.com/paigasus/helikon"
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
