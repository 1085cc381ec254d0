package durable_test

import (
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/durable"
)

// A host runs the steps a Driver asks for: here a model that answers at
// once, so the run is one model step and the finish.
func Example() {
	d := durable.NewDriver(helikon.TransitionCtx{Agent: "assistant", MaxTurns: 4}, 0)
	st := d.Start(helikon.UserText("What is 40+2?"), nil)
	for st.Kind != durable.StepFinish {
		switch st.Kind {
		case durable.StepCallModel:
			fmt.Printf("turn %d: call the model with %d messages\n", st.Turn, len(st.Request.Messages))
			answer := helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "42"}}}
			st = d.Feed(helikon.ModelResponse{Message: answer})
		default:
			fmt.Println("unexpected step", st.Kind)
			return
		}
	}
	if done, ok := st.Final.(helikon.Done); ok {
		fmt.Println("done:", done.Output)
	}
	// Output:
	// turn 1: call the model with 1 messages
	// done: 42
}
