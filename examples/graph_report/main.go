// Command graph_report fans a month's spending and income analysis into a
// combined summary: a graph whose spending and income nodes run
// concurrently, each looking its figures up with a tool, and whose summary
// node runs once both have finished, seeing their outputs as labelled
// context. It runs on the scripted mock model, so it needs no API key.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches every agent
// to one real model (examples/internal/envmodel; an error names the variable
// to set).
package main

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"io"
	"log"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
)

// MonthArgs names a month.
type MonthArgs struct {
	Month string `json:"month" jsonschema:"month in YYYY-MM form"`
}

// Totals are a month's figures by category.
type Totals struct {
	Total      float64            `json:"total" jsonschema:"sum over the categories, in dollars"`
	ByCategory map[string]float64 `json:"by_category" jsonschema:"amount per category, in dollars"`
}

var lookupSpending = helikon.MustTool("lookup_spending", "Look up the user's spending in a month, by category.",
	func(*helikon.ToolContext, MonthArgs) (Totals, error) {
		return Totals{Total: 3310, ByCategory: map[string]float64{"Housing": 1900, "Groceries": 540, "Dining": 312, "Transport": 558}}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

var lookupIncome = helikon.MustTool("lookup_income", "Look up the user's income in a month, by source.",
	func(*helikon.ToolContext, MonthArgs) (Totals, error) {
		return Totals{Total: 4200, ByCategory: map[string]float64{"Salary": 3900, "Freelance": 300}}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// HELIKON_PROVIDER switches every agent to one real model.
	pick, err := envmodel.Picker()
	if err != nil {
		return err
	}

	spending, err := helikon.NewAgent("spending analyst",
		pick(mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "s1", Name: "lookup_spending", Args: `{"month":"2026-11"}`}),
			mock.Text("Spent $3,310: housing $1,900, transport $558, groceries $540, dining $312."))),
		helikon.WithInstructions("Summarise the user's spending for the month in one sentence."),
		helikon.WithTools(lookupSpending))
	if err != nil {
		return err
	}
	income, err := helikon.NewAgent("income analyst",
		pick(mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "i1", Name: "lookup_income", Args: `{"month":"2026-11"}`}),
			mock.Text("Earned $4,200: salary $3,900, freelance $300."))),
		helikon.WithInstructions("Summarise the user's income for the month in one sentence."),
		helikon.WithTools(lookupIncome))
	if err != nil {
		return err
	}
	// The summary gets its predecessors' outputs as labelled messages after
	// the user's question; its instructions can also read them from State.
	summary, err := helikon.NewAgent("summary writer",
		pick(mock.Scripted(mock.Text("November: you earned $4,200 and spent $3,310, so you saved $890 (21%). "+
			"Transport is your largest flexible cost; trimming it by $100 would lift savings to 24%."))),
		helikon.WithInstructionsFunc(func(_ context.Context, rc *helikon.RunContext) (string, error) {
			return "Write a two-sentence monthly report.\nSpending: " + rc.State().String("spending") +
				"\nIncome: " + rc.State().String("income"), nil
		}))
	if err != nil {
		return err
	}
	report, err := workflow.NewGraph("finance_report",
		workflow.WithDescription("Fans spending and income analysis into a combined summary."),
		workflow.Node("spending", spending),
		workflow.Node("income", income),
		workflow.Node("summary", summary),
		workflow.Edge("spending", "summary"),
		workflow.Edge("income", "summary"))
	if err != nil {
		return err
	}

	rc := helikon.Ephemeral()
	res, err := helikon.Collect(report.Run(ctx, rc, helikon.UserText("How did November go?")))
	if err != nil {
		return err
	}
	for _, node := range []string{"spending", "income"} {
		fmt.Fprintf(w, "%-8s → %s\n", node, rc.State().String(node))
	}
	fmt.Fprintf(w, "report   → %s\n", res.FinalOutput)
	fmt.Fprintf(w, "(%d input + %d output tokens across 3 nodes)\n", res.Usage.InputTokens, res.Usage.OutputTokens)
	return nil
}
