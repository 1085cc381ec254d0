package workflow_test

import (
	"context"
	"fmt"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

// fallback is a sixth kind of workflow agent, built on the core's sub-run
// API and this package's RunChild: it tries its agents in order and completes with the first
// that succeeds.
type fallback struct {
	name   string
	agents []helikon.Agent
}

func (f *fallback) Name() string        { return f.name }
func (f *fallback) Description() string { return "the first of its agents that succeeds" }

func (f *fallback) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := helikon.OpenRun(ctx, rc, f.name, f.Description(), false, yield)
		if !ok {
			return
		}
		defer done()
		var total helikon.Usage
		var last error
		for _, a := range f.agents {
			o, _, ok := workflow.RunChild(ctx, rc, a, input, nil, yield)
			if !ok {
				return
			}
			total = total.Add(o.Usage)
			if o.Err == nil {
				yield(helikon.RunCompleted{Agent: o.Agent, Usage: total})
				return
			}
			last = o.Err
		}
		yield(helikon.RunFailed{Err: last, Usage: total})
	}
}

// A new kind of workflow agent needs only the core's sub-run API and
// [workflow.RunChild]: [helikon.OpenRun] opens its run, [workflow.RunChild] runs each child and
// folds the child's stream into [helikon.ChildOutcome].
func Example_sixthKind() {
	broken, _ := helikon.NewAgent("broken", mock.Scripted(mock.Fail(&helikon.ModelError{Kind: helikon.ModelUnavailable, Message: "down"})))
	backup, _ := helikon.NewAgent("backup", mock.Scripted(mock.Text("answered by the backup")))
	agent := &fallback{name: "fallback", agents: []helikon.Agent{broken, backup}}
	for ev := range agent.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")) {
		switch e := ev.(type) {
		case helikon.AgentUpdated:
			fmt.Println("trying", e.Agent)
		case helikon.MessageOutput:
			fmt.Println("said:", e.Item.Text())
		case helikon.RunCompleted:
			fmt.Println("completed by", e.Agent)
		case helikon.RunFailed:
			fmt.Println("failed:", e.Err)
		}
	}
	// Output:
	// trying broken
	// trying backup
	// said: answered by the backup
	// completed by backup
}
