package helikon_test

import (
	"context"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func ExampleNewAgent() {
	type AddArgs struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}
	add := helikon.MustTool("add", "Add two integers.", func(tc *helikon.ToolContext, in AddArgs) (int, error) {
		return in.A + in.B, nil
	})
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("40 + 2 = 42"),
	)
	agent, err := helikon.NewAgent("calculator", model,
		helikon.WithInstructions("Use the add tool for arithmetic."),
		helikon.WithTools(add))
	if err != nil {
		panic(err)
	}
	res, err := helikon.Collect(agent.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("What is 40 + 2?")))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: 40 + 2 = 42
}

func ExampleLLMAgent_Run() {
	model := mock.Scripted(mock.Deltas("Hello", ", ", "world"))
	agent, _ := helikon.NewAgent("greeter", model)
	for ev := range agent.Run(context.Background(), nil, helikon.UserText("hi")) {
		switch e := ev.(type) {
		case helikon.TokenDelta:
			fmt.Print(e.Text)
		case helikon.RunCompleted:
			fmt.Println()
		case helikon.RunFailed:
			fmt.Println("failed:", e.Err)
		}
	}
	// Output: Hello, world
}

func ExampleCollectTyped() {
	type Category struct {
		Category  string `json:"category" jsonschema:"spending category"`
		Recurring bool   `json:"recurring" jsonschema:"whether the charge looks recurring"`
	}
	model := mock.Scripted(mock.Text(`{"category":"Subscriptions","recurring":true}`))
	agent, _ := helikon.NewAgent("categorizer", model, helikon.WithOutput[Category]())
	res, err := helikon.CollectTyped[Category](agent.Run(context.Background(), nil, helikon.UserText("NETFLIX.COM $15.49")))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s recurring=%v\n", res.Output.Category, res.Output.Recurring)
	// Output: Subscriptions recurring=true
}

func ExampleTransition() {
	tc := &helikon.TransitionCtx{Agent: "a", Conversation: helikon.UserText("hi"), MaxTurns: 4}
	out := helikon.Transition(nil, helikon.Start{}, tc)
	fmt.Printf("%T %v\n", out.Next, out.Action.Kind == helikon.ActCallModel)
	// Output: helikon.CallingModel true
}
