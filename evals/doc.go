// Package evals runs a dataset of cases through an agent, scores each
// case's outcome with evaluators, and aggregates the results into a
// [Report]: in CI (helikon eval run) or from a test.
//
// A dataset is JSONL, one case per line ([LoadDataset]); an [Evaluator]
// scores a case in [0, 1] with a verdict of Passed, Failed or Skipped. The
// built-ins are [ExactMatch], [ToolTrajectory], [JSONSchema] and
// [LLMJudge], and [FromConfig] builds them by name. A [Run] executes the
// cases, concurrently if asked, and returns them in dataset order; the
// report renders as a table ([Report.WriteTable]) or JSON, and
// [Report.Check] is the exit decision. [Diff] compares two reports.
// [Recorder] captures a live run's model streams in the mock script format
// and [ReplayFactory] runs a dataset against them, with no network.
//
// The smallest use, with a fresh mock-backed agent per case:
//
//	ds, err := evals.LoadDataset("cases.jsonl")
//	scripts, err := mock.LoadScriptFile("script.json")
//	run, err := evals.NewRun(ds,
//		evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
//			return helikon.NewAgent("calc", scripts.Model(c.ID), helikon.WithTools(add))
//		}),
//		evals.WithEvaluators(evals.NewExactMatch()))
//	rep, err := run.Execute(ctx)
//	rep.WriteTable(os.Stdout)
//	if !rep.Passed() { os.Exit(1) }
//
// Trace sinks live in sub-packages, so a program links only the storage it
// uses: sqlitesink (SQLite, the driver the session backend uses) and
// parquetsink (Parquet files); package sinks opens either from a spec
// such as "sqlite:evals.db" or "parquet:out/".
package evals
