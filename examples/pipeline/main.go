// Command pipeline drafts a client note in two fixed steps: a researcher
// gathers the facts, then a writer, whose instructions read the research
// from run state, drafts the note and checks one figure with a fact-checker
// agent it calls as a tool. It runs on the scripted mock model, so it needs
// no API key.
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

	researcher, err := helikon.NewAgent("researcher",
		pick(mock.Scripted(mock.Text("Fed funds rate: 4.25–4.50% since the December meeting. "+
			"High-yield savings accounts pay about 4.1% APY. 1-year CDs pay about 4.3%."))),
		helikon.WithInstructions("List the facts a client note on cash savings needs, with figures."))
	if err != nil {
		return err
	}
	factChecker, err := helikon.NewAgent("fact checker",
		pick(mock.Scripted(mock.Text("Confirmed: 1-year CDs average about 4.3% at online banks."))),
		helikon.WithDescription("Checks one factual claim and says whether it holds."),
		helikon.WithInstructions("Check the claim. Answer in one sentence starting with Confirmed or Refuted."))
	if err != nil {
		return err
	}
	checkFact, err := helikon.AgentAsTool(factChecker, helikon.WithToolName("check_fact"))
	if err != nil {
		return err
	}
	writer, err := helikon.NewAgent("writer",
		pick(mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "c1", Name: "check_fact", Args: `{"input":"1-year CDs pay about 4.3%"}`}),
			mock.Text("Cash is earning again: high-yield savings pay about 4.1% and 1-year CDs about 4.3%, "+
				"so money you need within a year belongs in one of them rather than in checking."))),
		helikon.WithInstructionsFunc(func(_ context.Context, rc *helikon.RunContext) (string, error) {
			// The researcher's final text is in state under its step key.
			return "Write a two-sentence client note from these notes. Check any figure you are unsure of.\n\n" +
				rc.State().String("researcher"), nil
		}),
		helikon.WithTools(checkFact))
	if err != nil {
		return err
	}
	pipeline, err := workflow.NewSequential("client_note",
		workflow.WithDescription("Research, then write."),
		workflow.Step(researcher),
		workflow.Step(writer))
	if err != nil {
		return err
	}

	for ev := range pipeline.Run(ctx, helikon.Ephemeral(), helikon.UserText("Draft a note on where to keep cash this year.")) {
		switch e := ev.(type) {
		case helikon.AgentUpdated:
			fmt.Fprintf(w, "── %s\n", e.Agent)
		case helikon.ToolCallItem:
			u := e.Item.ToolUses()[0]
			fmt.Fprintf(w, "   → %s(%s)\n", u.Name, u.Args)
		case helikon.ToolOutputItem:
			r := e.Item.Content[0].(helikon.ToolResultPart)
			fmt.Fprintf(w, "   ← %s\n", r.Content[0].(helikon.TextPart).Text)
		case helikon.MessageOutput:
			fmt.Fprintf(w, "%s\n", e.Item.Text())
		case helikon.RunCompleted:
			fmt.Fprintf(w, "(%d input + %d output tokens, the fact check run as a tool included)\n", e.Usage.InputTokens, e.Usage.OutputTokens)
		case helikon.RunFailed:
			return e.Err
		}
	}
	return nil
}
