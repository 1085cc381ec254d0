package budget_test

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/budget"
)

func TestModels_AnswerTheQuestionWithBothLookups(t *testing.T) {
	for name, model := range map[string]helikon.Model{"scripted": budget.ScriptedModel(), "per turn": budget.Model{}} {
		agent, err := helikon.NewAgent("budget-assistant", model,
			helikon.WithInstructions(budget.Instructions),
			helikon.WithTools(budget.LookupSpending, budget.BudgetStatus))
		if err != nil {
			t.Fatal(err)
		}
		res, err := helikon.Collect(agent.Run(context.Background(), helikon.Ephemeral(), helikon.UserText(budget.Question)))
		if err != nil || res.FinalOutput != budget.Answer {
			t.Errorf("%s: %q %v", name, res.FinalOutput, err)
		}
	}
}
