// Command triage routes a personal-finance question to the right specialist
// with a handoff: the triage agent's model calls the transfer tool of the
// investing specialist, which then answers the rest of the conversation.
// It runs on the scripted mock model, so it needs no API key.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches every agent
// to one real model (examples/internal/envmodel; an error names the variable
// to set).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
)

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

	budgeting, err := helikon.NewAgent("budgeting specialist",
		pick(mock.Scripted(mock.Text("Cut dining out to twice a week."))),
		helikon.WithDescription("Answers questions about monthly budgets and cutting spending."),
		helikon.WithInstructions("You are a budgeting specialist. Give concrete, friendly advice."))
	if err != nil {
		return err
	}
	investing, err := helikon.NewAgent("investing specialist",
		pick(mock.Scripted(mock.Deltas("Keep three months of expenses in cash, ",
			"then put the rest of the $5,000 in a low-cost index fund ",
			"and add to it every month."))),
		helikon.WithDescription("Answers questions about investing, portfolios, and retirement."),
		helikon.WithInstructions("You are an investing specialist. Give concrete, prudent advice."))
	if err != nil {
		return err
	}
	// The triage model sees one transfer tool per specialist, described by
	// the specialist's description, and picks one.
	triage, err := helikon.NewAgent("triage",
		pick(mock.Scripted(mock.ToolCalls(mock.Call{ID: "call_1", Name: "transfer_to_investing_specialist", Args: `{}`}))),
		helikon.WithInstructions("Classify the user's personal-finance question and transfer to the right specialist. "+
			"Do not answer yourself; always hand off."),
		helikon.WithHandoffs(helikon.HandoffTo(budgeting), helikon.HandoffTo(investing)))
	if err != nil {
		return err
	}

	question := "How should I start investing $5,000?"
	fmt.Fprintf(w, "user: %s\n", question)
	for ev := range triage.Run(ctx, helikon.Ephemeral(), helikon.UserText(question)) {
		switch e := ev.(type) {
		case helikon.HandoffItem:
			fmt.Fprintf(w, "[handoff %s → %s]\n", e.From, e.To)
		case helikon.AgentUpdated:
			fmt.Fprintf(w, "%s: ", e.Agent)
		case helikon.TokenDelta:
			fmt.Fprint(w, e.Text)
		case helikon.RunCompleted:
			fmt.Fprintf(w, "\n(%d input + %d output tokens across both agents)\n", e.Usage.InputTokens, e.Usage.OutputTokens)
		case helikon.RunFailed:
			return e.Err
		}
	}
	return nil
}
