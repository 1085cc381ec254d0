package retry_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/retry"
)

func ExampleNew() {
	// The provider is briefly unavailable, then answers.
	flaky := mock.Scripted(
		mock.Fail(&helikon.ModelError{Kind: helikon.ModelUnavailable, StatusCode: 503}),
		mock.Text("Hello!"),
	)
	model, err := retry.New(flaky, retry.WithMaxAttempts(3), retry.WithBaseDelay(time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	agent, err := helikon.NewAgent("greeter", model)
	if err != nil {
		log.Fatal(err)
	}
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("hi")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.FinalOutput, "after", len(flaky.Requests()), "attempts")
	// Output: Hello! after 2 attempts
}

func ExampleNewLimiter() {
	// One limiter per provider account, shared by every model drawing on it.
	limiter, err := retry.NewLimiter(500, 200_000) // requests, tokens per minute
	if err != nil {
		log.Fatal(err)
	}
	planner, _ := retry.New(mock.Scripted(mock.Text("plan")), retry.WithLimiter(limiter))
	writer, _ := retry.New(mock.Scripted(mock.Text("draft")), retry.WithLimiter(limiter))
	for _, m := range []helikon.Model{planner, writer} {
		agent, _ := helikon.NewAgent("worker", m)
		res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("go")))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.FinalOutput)
	}
	// Output:
	// plan
	// draft
}
