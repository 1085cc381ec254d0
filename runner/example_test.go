package runner_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

func ExampleRunner_Run() {
	ctx := context.Background()
	agent, err := helikon.NewAgent("greeter", mock.Scripted(mock.Text("Hello, Ada!"), mock.Text("You are Ada.")))
	if err != nil {
		log.Fatal(err)
	}
	// The session outlives the runs: the second run sees the first.
	sess := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(sess))
	r := runner.New()
	for _, msg := range []string{"I am Ada.", "Who am I?"} {
		res, err := r.Run(ctx, agent, rc, helikon.UserText(msg))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.FinalOutput)
	}
	history, _ := sess.Snapshot(ctx)
	fmt.Println(len(history), "messages in the session")
	// Output:
	// Hello, Ada!
	// You are Ada.
	// 4 messages in the session
}

func ExampleRunner_Resume() {
	ctx := context.Background()
	// A process crashed after recording the user's question.
	sess := helikon.NewMemorySession()
	if err := sess.Append(ctx, helikon.UserMessage(helikon.TextPart{Text: "What is 40+2?"})); err != nil {
		log.Fatal(err)
	}
	agent, err := helikon.NewAgent("calc", mock.Scripted(mock.Text("42")))
	if err != nil {
		log.Fatal(err)
	}
	res, err := runner.New().Resume(ctx, agent, helikon.NewRunContext(helikon.WithSession(sess)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: 42
}

func ExampleSessionRecorder() {
	input := helikon.UserText("40+2?")
	agent, err := helikon.NewAgent("calc", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	), helikon.WithTools(addTool))
	if err != nil {
		log.Fatal(err)
	}
	rec := runner.NewSessionRecorder(input)
	for ev := range agent.Run(context.Background(), nil, input) {
		rec.Observe(ev)
	}
	for _, ev := range rec.Drain() {
		fmt.Println(strings.TrimSpace(string(ev.Kind) + " " + ev.CallID))
	}
	// Output:
	// user_message
	// tool_called c1
	// tool_returned c1
	// assistant_message
}
