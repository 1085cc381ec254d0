// Command structured_output asks an agent for a typed answer: the final turn
// is constrained to the JSON Schema of TransactionCategory, the answer is
// validated (with one repair turn on a miss) and decoded. It runs on the
// scripted mock model, so it needs no API key.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TransactionCategory is the typed answer.
type TransactionCategory struct {
	Category   string  `json:"category" jsonschema:"spending category, e.g. Groceries, Dining, Transport"`
	Confidence float64 `json:"confidence" jsonschema:"0.0–1.0 confidence in the category"`
	Recurring  bool    `json:"recurring" jsonschema:"true if this looks like a recurring charge"`
	Reasoning  string  `json:"reasoning" jsonschema:"one-sentence justification"`
}

func main() {
	// The first answer misses the schema (confidence is a string); the loop
	// shows the model the schema errors and the repair turn gets it right.
	model := mock.Scripted(
		mock.Text(`{"category":"Subscriptions","confidence":"high","recurring":true,"reasoning":"Netflix bills monthly."}`),
		mock.Text(`{"category":"Subscriptions","confidence":0.97,"recurring":true,"reasoning":"Netflix bills the same amount monthly."}`),
	)
	agent, err := helikon.NewAgent("transaction-categorizer", model,
		helikon.WithInstructions("Categorize the transaction into a single spending category, say whether it looks "+
			"recurring, and express your confidence as a number between 0.0 and 1.0."),
		helikon.WithOutput[TransactionCategory]())
	if err != nil {
		log.Fatal(err)
	}
	res, err := helikon.CollectTyped[TransactionCategory](agent.Run(context.Background(), helikon.Ephemeral(),
		helikon.UserText("NETFLIX.COM 866-579-7172 CA — $15.49")))
	if err != nil {
		log.Fatal(err)
	}
	for _, ev := range res.Events {
		if r, ok := ev.(helikon.RepairStarted); ok {
			fmt.Printf("(repair turn %d)\n", r.Attempt)
		}
	}
	fmt.Printf("%+v\n", res.Output)
}
