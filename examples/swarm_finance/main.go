// Command swarm_finance runs a personal-finance support swarm: triage,
// budgeting and investing agents that can each hand the conversation to any
// other. Triage routes to budgeting, budgeting checks the user's monthly
// surplus with a tool and passes to investing, and investing answers: the
// first member to answer wins. It runs on the scripted mock model, so it
// needs no API key.
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

// Surplus is monthly_surplus's result.
type Surplus struct {
	Income   float64 `json:"income" jsonschema:"monthly take-home income, in dollars"`
	Expenses float64 `json:"expenses" jsonschema:"monthly spending, in dollars"`
	Surplus  float64 `json:"surplus" jsonschema:"income minus expenses, in dollars"`
}

var monthlySurplus = helikon.MustTool("monthly_surplus", "Look up the user's average monthly income, spending and surplus.",
	func(*helikon.ToolContext, struct{}) (Surplus, error) {
		return Surplus{Income: 4200, Expenses: 3800, Surplus: 400}, nil
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

	triage, err := helikon.NewAgent("triage",
		pick(mock.Scripted(mock.ToolCalls(mock.Call{ID: "t1", Name: "transfer_to_budgeting", Args: `{}`}))),
		helikon.WithDescription("Routes a new question to the right specialist."),
		helikon.WithInstructions("Route the user's question to the specialist who should handle it."))
	if err != nil {
		return err
	}
	budgeting, err := helikon.NewAgent("budgeting",
		pick(mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "b1", Name: "monthly_surplus", Args: `{}`}),
			mock.ToolCalls(mock.Call{ID: "b2", Name: "transfer_to_investing", Args: `{}`}))),
		helikon.WithDescription("Answers questions about monthly budgets, spending and saving."),
		helikon.WithInstructions("Check the user's budget. Hand investment questions to investing."),
		helikon.WithTools(monthlySurplus))
	if err != nil {
		return err
	}
	investing, err := helikon.NewAgent("investing",
		pick(mock.Scripted(mock.Text("Your budget leaves $400 a month. Keep $100 of it for your emergency fund "+
			"and invest $300 in a broad index fund by automatic transfer on payday."))),
		helikon.WithDescription("Answers questions about investing, portfolios and retirement."),
		helikon.WithInstructions("Give prudent investing advice grounded in the user's budget."))
	if err != nil {
		return err
	}
	swarm, err := workflow.NewSwarm("support_swarm",
		workflow.WithDescription("A personal-finance support swarm covering budgeting and investing."),
		workflow.Members(triage, budgeting, investing), // triage, the first, is the entry
		workflow.WithMaxHandoffs(6))
	if err != nil {
		return err
	}

	question := "I have money left over each month. Should I invest it?"
	fmt.Fprintf(w, "user: %s\n", question)
	res, err := helikon.Collect(swarm.Run(ctx, helikon.Ephemeral(), helikon.UserText(question)))
	if err != nil {
		return err
	}
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.HandoffItem:
			fmt.Fprintf(w, "[handoff %s → %s]\n", e.From, e.To)
		case helikon.ToolCallItem:
			if u := e.Item.ToolUses()[0]; u.Name == monthlySurplus.Name() {
				fmt.Fprintf(w, "[%s calls %s]\n", e.Item.Agent, u.Name)
			}
		}
	}
	fmt.Fprintf(w, "%s: %s\n", res.LastAgent, res.FinalOutput)
	fmt.Fprintf(w, "(%d input + %d output tokens across the swarm)\n", res.Usage.InputTokens, res.Usage.OutputTokens)
	return nil
}
