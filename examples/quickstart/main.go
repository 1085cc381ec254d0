// Command quickstart is the budgeting assistant of the Helikon quickstart: an
// agent with two tools that looks up the user's spending and budget, then
// advises. It runs on the scripted mock model by default, so it needs no API
// key.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
)

// SpendingArgs are lookup_spending's arguments.
type SpendingArgs struct {
	Category string `json:"category" jsonschema:"spending category, e.g. Dining"`
	Month    string `json:"month" jsonschema:"month in YYYY-MM form"`
}

// Spending is lookup_spending's result.
type Spending struct {
	Total float64 `json:"total" jsonschema:"total spent in the category this month, in dollars"`
	Count int     `json:"count" jsonschema:"number of transactions"`
}

// BudgetArgs are budget_status's arguments.
type BudgetArgs struct {
	Category string `json:"category" jsonschema:"spending category, e.g. Dining"`
}

// Budget is budget_status's result.
type Budget struct {
	Budget    float64 `json:"budget" jsonschema:"monthly budget for the category, in dollars"`
	Spent     float64 `json:"spent" jsonschema:"amount spent so far, in dollars"`
	Remaining float64 `json:"remaining" jsonschema:"remaining budget (negative = over budget)"`
}

var lookupSpending = helikon.MustTool("lookup_spending",
	"Look up the user's total spending and transaction count for a category in a month.",
	func(tc *helikon.ToolContext, in SpendingArgs) (Spending, error) {
		switch strings.ToLower(in.Category) {
		case "dining":
			return Spending{Total: 312.40, Count: 18}, nil
		case "groceries":
			return Spending{Total: 540.10, Count: 9}, nil
		}
		return Spending{}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

var budgetStatus = helikon.MustTool("budget_status",
	"Look up the user's monthly budget, amount spent, and remaining balance for a category.",
	func(tc *helikon.ToolContext, in BudgetArgs) (Budget, error) {
		switch strings.ToLower(in.Category) {
		case "dining":
			return Budget{Budget: 250, Spent: 312.40, Remaining: -62.40}, nil
		case "groceries":
			return Budget{Budget: 600, Spent: 540.10, Remaining: 59.90}, nil
		}
		return Budget{}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

// scriptedModel plays the turns a real model would take on this question.
func scriptedModel() helikon.Model {
	return mock.Scripted(
		mock.ToolCalls(
			mock.Call{ID: "call_1", Name: "lookup_spending", Args: `{"category":"Dining","month":"2026-11"}`},
			mock.Call{ID: "call_2", Name: "budget_status", Args: `{"category":"Dining"}`},
		),
		mock.Deltas("You have spent $312.40 on dining this month ", "against a $250 budget, ",
			"so you are $62.40 over. ", "Try cooking at home twice a week for the rest of the month."),
	)
}

func main() {
	model, err := envmodel.Select(scriptedModel())
	if err != nil {
		log.Fatal(err)
	}
	agent, err := helikon.NewAgent("budget-assistant", model,
		helikon.WithInstructions("You are a budgeting assistant. Use the tools to look up the user's spending "+
			"and budget for the relevant category, then tell them whether they are on track and suggest one concrete action."),
		helikon.WithTools(lookupSpending, budgetStatus))
	if err != nil {
		log.Fatal(err)
	}
	stream := agent.Run(context.Background(), helikon.Ephemeral(),
		helikon.UserText("How am I doing on my dining budget this month?"))
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
