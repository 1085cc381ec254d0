// Command server serves the quickstart's budgeting assistant over HTTP,
// Server-Sent Events and WebSocket, on the scripted mock model (no API
// key), at 127.0.0.1:8080 (-addr to change it). Try each mode:
//
//	# one-shot: the finished run as JSON
//	curl -s localhost:8080/agents/budget-assistant/runs -d '{"input":"How am I doing on dining?"}'
//
//	# stream the run as Server-Sent Events
//	curl -sN 'localhost:8080/agents/budget-assistant/runs?stream=sse' -d '{"input":"How am I doing on dining?"}'
//
//	# start it in the background (202), then poll it and replay its events
//	curl -si 'localhost:8080/agents/budget-assistant/runs?mode=async' -d '{"input":"How am I doing on dining?"}'
//	curl -s  localhost:8080/agents/budget-assistant/runs/$RUN_ID
//	curl -sN localhost:8080/agents/budget-assistant/runs/$RUN_ID/events -H 'Last-Event-ID: 3'
//
//	# the same conversation across runs, and the API description
//	curl -s localhost:8080/agents/budget-assistant/runs -H 'X-Session-Id: alice' -d '{"input":"And groceries?"}'
//	curl -s localhost:8080/openapi.json
//
// Ctrl-C shuts down gracefully: running runs get 10 s to finish.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches it to a
// real model (examples/internal/envmodel; an error names the variable to
// set).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/budget"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/server"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log.Printf("serving budget-assistant on http://%s", *addr)
	if err := srv.Serve(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}

// newServer serves the budgeting assistant. Its tools are read-only, so
// the default context (plan mode for network callers) lets them run.
func newServer() (*server.Server, error) {
	model, err := envmodel.Select(budget.Model{})
	if err != nil {
		return nil, err
	}
	agent, err := helikon.NewAgent("budget-assistant", model,
		helikon.WithDescription("Tells you how your spending compares with your budget."),
		helikon.WithInstructions(budget.Instructions),
		helikon.WithTools(budget.LookupSpending, budget.BudgetStatus))
	if err != nil {
		return nil, err
	}
	return server.New([]helikon.Agent{agent}, server.WithGracePeriod(10*time.Second))
}
