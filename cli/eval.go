package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/evals/sinks"
)

func newEvalCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate sidecar agents against datasets",
	}
	cmd.AddCommand(newEvalRunCommand(o))
	return cmd
}

func newEvalRunCommand(o *options) *cobra.Command {
	var (
		agent, trace string
		asJSON       bool
		failUnder    float64
	)
	cmd := &cobra.Command{
		Use:   "run DATASET.jsonl --agent NAME [--json] [--fail-under F] [--trace sqlite:PATH|parquet:DIR]",
		Short: "Run a JSONL dataset against one agent and score it with the sidecar's evaluators",
		Long: `eval run builds a fresh agent per case (so mock scripts replay from the
start, and a case id in a mock script file selects that case's script), scores
each case with the [eval] evaluators of the sidecar, and prints the table (or
the report as JSON with --json). The exit code is 1 when any case failed or,
with --fail-under, when the mean score is below F; 2 for a usage or
configuration error.`,
		Example: `  helikon eval run cases.jsonl --agent triage
  helikon eval run cases.jsonl --agent triage --json --fail-under 0.9 --trace sqlite:evals.db`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			if agent == "" {
				return fmt.Errorf("eval run needs --agent NAME; %s declares %s", f.Path, nameList(f.AgentNames()))
			}
			if _, err := pickAgent(f, agent); err != nil {
				return err
			}
			if f.Eval == nil || len(f.Eval.Evaluators) == 0 {
				return f.Errorf("eval", "no evaluators: add [eval] evaluators = [\"exact_match\", \"tool_trajectory\"]")
			}
			ds, err := evals.LoadDataset(args[0])
			if err != nil {
				return err
			}
			evs, err := evaluators(f)
			if err != nil {
				return err
			}
			opts := []evals.RunOption{
				evals.WithAgentFactory(func(c *evals.Case) (helikon.Agent, error) {
					return newBuilder(f, c.ID).agent(agent)
				}),
				evals.WithEvaluators(evs...),
				evals.WithProgress(evals.NewProgress(o.io.Err)),
			}
			if trace != "" {
				sink, err := sinks.Open(trace)
				if err != nil {
					return err
				}
				if c, ok := sink.(io.Closer); ok {
					defer c.Close()
				}
				opts = append(opts, evals.WithSinks(sink))
			}
			run, err := evals.NewRun(ds, opts...)
			if err != nil {
				return err
			}
			rep, err := run.Execute(cmd.Context())
			if err != nil {
				return failed(err)
			}
			if asJSON {
				enc := json.NewEncoder(o.io.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return failed(err)
				}
			} else if err := rep.WriteTable(o.io.Out); err != nil {
				return failed(err)
			}
			if err := rep.Check(failUnder); err != nil {
				return failed(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to evaluate (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON instead of a table")
	cmd.Flags().Float64Var(&failUnder, "fail-under", 0, "exit 1 when the mean score is below this (0 to 1)")
	cmd.Flags().StringVar(&trace, "trace", "", "also record the run to sqlite:PATH or parquet:DIR")
	return cmd
}

// evaluators builds the sidecar's [eval] evaluators.
func evaluators(f *sidecar.File) ([]evals.Evaluator, error) {
	e := f.Eval
	out := make([]evals.Evaluator, 0, len(e.Evaluators))
	for _, name := range e.Evaluators {
		cfg := evals.EvaluatorConfig{Name: name}
		switch name {
		case "tool_trajectory":
			if e.ToolTrajectory != nil {
				cfg.Mode = evals.TrajectoryMode(e.ToolTrajectory.Mode)
			}
		case "json_schema":
			cfg.Schema = e.JSONSchema.Schema
		case "llm_judge":
			m, err := newBuilder(f, "").model("eval.llm_judge.model", e.LLMJudge.Model, "")
			if err != nil {
				return nil, err
			}
			cfg.Model, cfg.Rubric, cfg.Threshold = m, e.LLMJudge.Rubric, e.LLMJudge.Threshold
		}
		ev, err := evals.FromConfig(cfg)
		if err != nil {
			return nil, f.Errorf("eval."+name, "%v", err)
		}
		out = append(out, ev)
	}
	return out, nil
}
