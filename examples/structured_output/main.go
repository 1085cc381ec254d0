// Command structured_output asks an agent for a typed answer: the final turn
// is constrained to the JSON Schema of TransactionCategory, the answer is
// validated (with one repair turn on a miss) and decoded. It shows the
// one-pass form: the run streams through the runner (which persists it in
// the session), a [helikon.Collector] records it on the way, and
// [helikon.OutputAs] decodes the typed answer at the end. It runs on the
// scripted mock model, so it needs no API key.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches it to a
// real model (examples/internal/envmodel; an error names the variable to
// set).
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
	"github.com/paigasus/helikon/runner"
)

// TransactionCategory is the typed answer.
type TransactionCategory struct {
	Category   string  `json:"category" jsonschema:"spending category, e.g. Groceries, Dining, Transport"`
	Confidence float64 `json:"confidence" jsonschema:"0.0–1.0 confidence in the category"`
	Recurring  bool    `json:"recurring" jsonschema:"true if this looks like a recurring charge"`
	Reasoning  string  `json:"reasoning" jsonschema:"one-sentence justification"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// The first answer misses the schema (confidence is a string); the loop
	// shows the model the schema errors and the repair turn gets it right.
	model, err := envmodel.Select(mock.Scripted(
		mock.Text(`{"category":"Subscriptions","confidence":"high","recurring":true,"reasoning":"Netflix bills monthly."}`),
		mock.Text(`{"category":"Subscriptions","confidence":0.97,"recurring":true,"reasoning":"Netflix bills the same amount monthly."}`),
	))
	if err != nil {
		return err
	}
	agent, err := helikon.NewAgent("transaction-categorizer", model,
		helikon.WithInstructions("Categorize the transaction into a single spending category, say whether it looks "+
			"recurring, and express your confidence as a number between 0.0 and 1.0."),
		helikon.WithOutput[TransactionCategory]())
	if err != nil {
		return err
	}
	session := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(session))

	var c helikon.Collector
	for ev := range c.Observe(runner.New().RunStreamed(ctx, agent, rc, helikon.UserText("NETFLIX.COM 866-579-7172 CA — $15.49"))) {
		switch e := ev.(type) {
		case helikon.TurnStarted:
			fmt.Fprintf(w, "turn %d\n", e.Turn)
		case helikon.RepairStarted:
			fmt.Fprintf(w, "(repair turn %d)\n", e.Attempt)
		}
	}
	res, err := helikon.OutputAs[TransactionCategory](c.Result())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%+v\n", res.Output)
	history, err := session.Snapshot(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d messages in the session\n", len(history))
	return nil
}
