package helikon_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func ExampleWithTracerProvider() {
	// Any SDK TracerProvider works; an in-memory recorder shows the spans.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	agent, err := helikon.NewAgent("calc", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	), helikon.WithTools(addTool))
	if err != nil {
		log.Fatal(err)
	}
	rc := helikon.NewRunContext(helikon.WithTracerProvider(tp),
		helikon.WithTracer(helikon.TracerHandle{SessionID: "s-1", UserID: "u-1"}))
	if _, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("40+2?"))); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// chat mock
	// execute_tool add
	// agent.turn
	// chat mock
	// agent.turn
	// invoke_agent calc
}

func ExampleWithBudget() {
	agent, err := helikon.NewAgent("calc", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), // 15 tokens
		mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":3,"b":3}`}), // 15 more
		mock.Text("done"),
	), helikon.WithTools(addTool))
	if err != nil {
		log.Fatal(err)
	}
	rc := helikon.NewRunContext(
		helikon.WithPrices(helikon.Prices{"mock": {Input: 2, Output: 8}}), // per million tokens
		helikon.WithBudget(helikon.Budget{MaxTokens: 20}),
	)
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	fmt.Println(errors.Is(err, helikon.ErrBudgetExceeded))
	fmt.Println(err)
	fmt.Printf("%d tokens, $%.6f\n", res.Usage.Total(), res.Usage.Cost)
	// Output:
	// true
	// budget exceeded (agent calc): token budget of 20 spent (30 used)
	// 30 tokens, $0.000120
}
