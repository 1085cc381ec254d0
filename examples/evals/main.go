// Command evals runs a JSONL dataset through a budgeting agent on the
// scripted mock model, scores every case with exact-match and
// tool-trajectory evaluators, and prints the report table. Each case gets
// a fresh agent and a fresh mock playing that case's scripts from
// script.json, so the run is deterministic at any concurrency and needs no
// API key. It exits with status 1 when a case fails, as a CI job would.
//
//	go run ./examples/evals
//	go run ./examples/evals -json        # the report as JSON
//	go run ./examples/evals -trace sqlite:evals.db
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches every case
// to one real model (examples/internal/envmodel; an error names the variable
// to set).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/evals/sinks"
	"github.com/paigasus/helikon/examples/internal/budget"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
)

// ledger is this example's own month-by-month data, which the dataset's
// expected answers quote; the argument and result types are the
// budgeting assistant's (examples/internal/budget).
var ledger = map[budget.SpendingArgs]budget.Spending{
	{Category: "Dining", Month: "2026-03"}:    {Total: 412.50, Count: 14},
	{Category: "Groceries", Month: "2026-03"}: {Total: 380.10, Count: 9},
}

var lookupSpending = helikon.MustTool("lookup_spending",
	"Look up the user's total spending and transaction count for a category in a month.",
	func(tc *helikon.ToolContext, in budget.SpendingArgs) (budget.Spending, error) { return ledger[in], nil },
	helikon.WithEffect(helikon.ReadOnly))

func main() {
	asJSON := flag.Bool("json", false, "print the report as JSON instead of a table")
	trace := flag.String("trace", "", "record the run in a trace sink: sqlite:PATH or parquet:DIR")
	flag.Parse()
	// Progress goes to stderr: a live bar on a terminal, plain lines in a log.
	passed, err := run(context.Background(), os.Stdout, evals.NewProgress(os.Stderr), exampleDir(), *asJSON, *trace)
	if err != nil {
		log.Fatal(err)
	}
	if !passed {
		os.Exit(1)
	}
}

// exampleDir is this file's directory, so that the dataset and script are
// found from any working directory.
func exampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

func run(ctx context.Context, w io.Writer, progress evals.Progress, dir string, asJSON bool, trace string) (bool, error) {
	ds, err := evals.LoadDataset(filepath.Join(dir, "dataset.jsonl"))
	if err != nil {
		return false, err
	}
	scripts, err := mock.LoadScriptFile(filepath.Join(dir, "script.json"))
	if err != nil {
		return false, err
	}
	// HELIKON_PROVIDER runs every case on one real model instead.
	pick, err := envmodel.Picker()
	if err != nil {
		return false, err
	}
	trajectory, err := evals.NewToolTrajectory(evals.TrajectoryExact)
	if err != nil {
		return false, err
	}
	opts := []evals.RunOption{
		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
			return helikon.NewAgent("budget-assistant", pick(scripts.Model(c.ID)),
				helikon.WithInstructions("You are a budgeting assistant. Use lookup_spending for any spending figure."),
				helikon.WithTools(lookupSpending))
		}),
		evals.WithContextFactory(func(*evals.Case) *helikon.RunContext {
			// Prices in dollars per million tokens, keyed by model id.
			return helikon.NewRunContext(helikon.WithPrices(helikon.Prices{"mock": {Input: 0.25, Output: 2}}))
		}),
		evals.WithEvaluators(evals.NewExactMatch(), trajectory),
		evals.WithConcurrency(4),
		evals.WithRunID("example"),
		evals.WithProgress(progress),
	}
	if trace != "" {
		sink, err := sinks.Open(trace)
		if err != nil {
			return false, err
		}
		opts = append(opts, evals.WithSinks(sink))
	}
	run, err := evals.NewRun(ds, opts...)
	if err != nil {
		return false, err
	}
	rep, err := run.Execute(ctx)
	if err != nil {
		return false, err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return rep.Passed(), enc.Encode(rep)
	}
	if err := rep.WriteTable(w); err != nil {
		return false, err
	}
	_, err = fmt.Fprintf(w, "passed: %v\n", rep.Passed())
	return rep.Passed(), err
}
