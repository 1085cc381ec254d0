package main

import (
	"context"
	"iter"
	"strings"

	"github.com/paigasus/helikon"
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

var spending = map[string]Spending{"dining": {312.40, 18}, "groceries": {540.10, 9}}
var budgets = map[string]Budget{"dining": {250, 312.40, -62.40}, "groceries": {600, 540.10, 59.90}}

var lookupSpending = helikon.MustTool("lookup_spending",
	"Look up the user's total spending and transaction count for a category in a month.",
	func(tc *helikon.ToolContext, in SpendingArgs) (Spending, error) {
		return spending[strings.ToLower(in.Category)], nil
	}, helikon.WithEffect(helikon.ReadOnly))

var budgetStatus = helikon.MustTool("budget_status",
	"Look up the user's monthly budget, amount spent, and remaining balance for a category.",
	func(tc *helikon.ToolContext, in BudgetArgs) (Budget, error) {
		return budgets[strings.ToLower(in.Category)], nil
	}, helikon.WithEffect(helikon.ReadOnly))

// budgetModel plays the turns a real model would take, for any number of
// concurrent runs: a user question gets the two lookups, their results
// get the advice. Each turn is a fresh scripted mock.
type budgetModel struct{}

func (budgetModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	script := mock.ToolCalls(
		mock.Call{ID: "call_1", Name: "lookup_spending", Args: `{"category":"Dining","month":"2026-11"}`},
		mock.Call{ID: "call_2", Name: "budget_status", Args: `{"category":"Dining"}`},
	)
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == helikon.RoleTool {
		script = mock.Deltas("You have spent $312.40 on dining this month ", "against a $250 budget, ",
			"so you are $62.40 over. ", "Try cooking at home twice a week for the rest of the month.")
	}
	return mock.Scripted(script).Invoke(ctx, req)
}

func (budgetModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }
