package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
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
	if err := sess.Append(ctx, session.UserMessage(helikon.TextPart{Text: "What is 40+2?"})); err != nil {
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

func ExampleRunner_Fork() {
	ctx := context.Background()
	add := helikon.MustTool("add", "Add two integers.", func(_ *helikon.ToolContext, in struct{ A, B int }) (int, error) {
		return in.A + in.B, nil
	})
	// The model says what the tool returned.
	answer := func(sum string) mock.Script { return mock.Text("the sum is " + sum) }
	agent, err := helikon.NewAgent("calc", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"A":40,"B":2}`}), answer("42"), // the run
		answer("99"), // the fork's one call
	), helikon.WithTools(add))
	if err != nil {
		log.Fatal(err)
	}
	var points [][]byte
	rc := helikon.NewRunContext(helikon.WithModelCallObserver(func(_ context.Context, c *helikon.ModelCall) {
		b, _ := json.Marshal(c.Checkpoint)
		points = append(points, b)
	}))
	r := runner.New()
	res, err := r.Run(ctx, agent, rc, helikon.UserText("what is 40+2?"))
	if err != nil {
		log.Fatal(err)
	}
	var cp helikon.Checkpoint
	if err := json.Unmarshal(points[1], &cp); err != nil { // before the second call
		log.Fatal(err)
	}
	fork, err := r.Fork(ctx, agent, nil, &cp, runner.ForkEdit{ToolResults: map[string]string{"c1": "99"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.FinalOutput)
	fmt.Println(fork.FinalOutput)
	// Output:
	// the sum is 42
	// the sum is 99
}
