package workflow_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

// A node's answer is as long as its model likes. The first labels of a
// run reserve room for the labels still to come, guessed from their own
// texts' length: one long answer must not reserve its length again for
// every labelled node of a wide graph (40 MiB here for a 1 MiB answer).
func TestGraph_OneLongAnswerIsNotReservedAgainForEveryLabelToCome(t *testing.T) {
	const fan = 40
	big := strings.Repeat("x", 1<<20)
	opts := []workflow.GraphOption{workflow.Node("a", mustAgent(t, "a", mock.Scripted(mock.Text(big))))}
	for i := range fan {
		k := fmt.Sprintf("b%02d", i)
		opts = append(opts, workflow.Node(k, mustAgent(t, k, mock.Scripted(mock.Text("y")))),
			workflow.Edge("a", k), workflow.Edge(k, "z"))
	}
	opts = append(opts, workflow.Node("z", mustAgent(t, "z", mock.Scripted(mock.Text("done")))))
	g, err := workflow.NewGraph("wide", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := helikon.Collect(g.Run(context.Background(), nil, helikon.UserText("go")))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != "done" {
		t.Fatalf("final output %q, want done", res.FinalOutput)
	}
	// The answer itself, its deltas and the labels' heads take a few MiB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("the run allocated %d MiB for one 1 MiB answer labelled once, want at most 16", got>>20)
	}
}
