// Command quickstart is the budgeting assistant of the Helikon quickstart: an
// agent with two tools that looks up the user's spending and budget, then
// advises. It runs on the scripted mock model by default, so it needs no API
// key. The tools, defined with helikon.MustTool, live in
// examples/internal/budget, which the server and evals examples share.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/budget"
	"github.com/paigasus/helikon/examples/internal/envmodel"
)

func main() {
	model, err := envmodel.Select(budget.ScriptedModel())
	if err != nil {
		log.Fatal(err)
	}
	agent, err := helikon.NewAgent("budget-assistant", model,
		helikon.WithInstructions(budget.Instructions),
		helikon.WithTools(budget.LookupSpending, budget.BudgetStatus))
	if err != nil {
		log.Fatal(err)
	}
	stream := agent.Run(context.Background(), helikon.Ephemeral(),
		helikon.UserText(budget.Question))
	for ev := range stream {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			u := e.Item.ToolUses()[0]
			fmt.Fprintf(os.Stderr, "→ %s(%s)\n", u.Name, u.Args)
		case helikon.TokenDelta:
			fmt.Print(e.Text)
		case helikon.RunCompleted:
			fmt.Printf("\n(%d input + %d output tokens)\n", e.Usage.InputTokens, e.Usage.OutputTokens)
		case helikon.RunFailed:
			log.Fatal(e.Err)
		}
	}
}
