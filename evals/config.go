package evals

import (
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
)

// ErrUnknownEvaluator reports an evaluator name that is not a built-in.
var ErrUnknownEvaluator = errors.New("evals: unknown evaluator")

// EvaluatorConfig names a built-in evaluator and its settings, as a
// configuration file (the CLI's [eval] section) gives them.
type EvaluatorConfig struct {
	// Name is exact_match, tool_trajectory, json_schema or llm_judge.
	Name string
	// Mode is tool_trajectory's comparison (default exact).
	Mode TrajectoryMode
	// Schema is json_schema's schema file.
	Schema string
	// Model, Rubric and Threshold configure llm_judge; Threshold must be
	// in (0, 1].
	Model     helikon.Model
	Rubric    string
	Threshold float64
	// JudgeOptions are passed on to [NewLLMJudge].
	JudgeOptions []JudgeOption
}

// BuiltinNames lists the names [FromConfig] accepts.
func BuiltinNames() []string {
	return []string{"exact_match", "tool_trajectory", "json_schema", "llm_judge"}
}

// FromConfig builds the built-in evaluator cfg names. An unknown name fails
// with [ErrUnknownEvaluator]; missing settings fail with an error saying
// which.
func FromConfig(cfg EvaluatorConfig) (Evaluator, error) {
	switch cfg.Name {
	case "exact_match":
		return NewExactMatch(), nil
	case "tool_trajectory":
		mode := cfg.Mode
		if mode == "" {
			mode = TrajectoryExact
		}
		return NewToolTrajectory(mode)
	case "json_schema":
		if cfg.Schema == "" {
			return nil, errors.New("evals: json_schema needs a schema file")
		}
		return LoadJSONSchema(cfg.Schema)
	case "llm_judge":
		if cfg.Threshold <= 0 {
			return nil, fmt.Errorf("evals: llm_judge needs a threshold in (0, 1], got %v", cfg.Threshold)
		}
		return NewLLMJudge(cfg.Model, cfg.Rubric, cfg.Threshold, cfg.JudgeOptions...)
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownEvaluator, cfg.Name, BuiltinNames())
}
