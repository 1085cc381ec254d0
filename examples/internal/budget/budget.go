// Package budget is the budgeting assistant several examples run (the
// quickstart, the HTTP server, the evals): its two read-only tools over a
// small fixed ledger, its instructions, and the turns a real model takes
// on the quickstart's question, for the scripted mock model.
//
//	agent, err := helikon.NewAgent("budget-assistant", budget.ScriptedModel(),
//		helikon.WithInstructions(budget.Instructions),
//		helikon.WithTools(budget.LookupSpending, budget.BudgetStatus))
package budget

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

// Instructions are the assistant's system instructions.
const Instructions = "You are a budgeting assistant. Use the tools to look up the user's spending " +
	"and budget for the relevant category, then tell them whether they are on track and suggest one concrete action."

// Question is the quickstart's question, which [ScriptedModel] answers.
const Question = "How am I doing on my dining budget this month?"

// Answer is the final text [ScriptedModel] gives.
const Answer = "You have spent $312.40 on dining this month against a $250 budget, " +
	"so you are $62.40 over. Try cooking at home twice a week for the rest of the month."

var spending = map[string]Spending{"dining": {312.40, 18}, "groceries": {540.10, 9}}
var budgets = map[string]Budget{"dining": {250, 312.40, -62.40}, "groceries": {600, 540.10, 59.90}}

// LookupSpending is lookup_spending: this month's total and transaction
// count in a category (the ledger knows Dining and Groceries).
var LookupSpending = helikon.MustTool("lookup_spending",
	"Look up the user's total spending and transaction count for a category in a month.",
	func(tc *helikon.ToolContext, in SpendingArgs) (Spending, error) {
		return spending[strings.ToLower(in.Category)], nil
	}, helikon.WithEffect(helikon.ReadOnly))

// BudgetStatus is budget_status: a category's monthly budget, amount
// spent and what remains.
var BudgetStatus = helikon.MustTool("budget_status",
	"Look up the user's monthly budget, amount spent, and remaining balance for a category.",
	func(tc *helikon.ToolContext, in BudgetArgs) (Budget, error) {
		return budgets[strings.ToLower(in.Category)], nil
	}, helikon.WithEffect(helikon.ReadOnly))

// lookups is the first turn: both tools on Dining.
func lookups() mock.Script {
	return mock.ToolCalls(
		mock.Call{ID: "call_1", Name: "lookup_spending", Args: `{"category":"Dining","month":"2026-11"}`},
		mock.Call{ID: "call_2", Name: "budget_status", Args: `{"category":"Dining"}`},
	)
}

// advice is the second turn: [Answer], streamed in four deltas.
func advice() mock.Script {
	return mock.Deltas("You have spent $312.40 on dining this month ", "against a $250 budget, ",
		"so you are $62.40 over. ", "Try cooking at home twice a week for the rest of the month.")
}

// ScriptedModel plays the two turns a real model takes on [Question], for
// one run: the two lookups, then [Answer].
func ScriptedModel() helikon.Model { return mock.Scripted(lookups(), advice()) }

// Model plays the same turns for any number of concurrent runs, as a
// server needs: a user message gets the lookups, tool results get the
// advice. Each turn is a fresh scripted mock.
type Model struct{}

// Invoke answers req's turn.
func (Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	script := lookups()
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == helikon.RoleTool {
		script = advice()
	}
	return mock.Scripted(script).Invoke(ctx, req)
}

// Capabilities are the mock's.
func (Model) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }
