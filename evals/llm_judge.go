package evals

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/paigasus/helikon"
)

// judgeInstructions frame the judge's task; the rubric follows them.
const judgeInstructions = `You are an impartial evaluator. You are given a task that was put to an AI assistant, ` +
	`possibly a reference answer, and the assistant's answer. Grade the answer against the rubric below. ` +
	`Reply with JSON only: {"score": a number from 0 to 1, "reasoning": "why, in one or two sentences"}.

Rubric:
`

// Judgment is the answer an [LLMJudge] expects from its model.
type Judgment struct {
	Score     float64 `json:"score" jsonschema:"grade from 0 (fails the rubric) to 1 (fully meets it)"`
	Reasoning string  `json:"reasoning" jsonschema:"why the answer earned the score, in one or two sentences"`
}

// LLMJudge grades the final output with a model against a rubric: the case
// passes when the model's score reaches the threshold. The judge's
// reasoning is kept as the score's Reason, and what the judge spent as its
// Usage. The judge answers through structured output ([Judgment]), so a
// malformed verdict is repaired or fails the evaluation like any other
// structured-output run.
type LLMJudge struct {
	agent     *helikon.LLMAgent
	rubric    string
	modelFor  func(c *Case) helikon.Model
	threshold float64
	rcOpts    []helikon.ContextOption
}

// JudgeOption configures an [LLMJudge].
type JudgeOption func(*LLMJudge)

// WithJudgeContext sets options of the RunContext each judgment runs on,
// [helikon.WithPrices] for instance, so that its usage carries a cost.
func WithJudgeContext(opts ...helikon.ContextOption) JudgeOption {
	return func(j *LLMJudge) { j.rcOpts = append(j.rcOpts, opts...) }
}

// WithJudgeModelPerCase grades each case with the model f returns for it
// instead of the one shared model: a fresh mock per case keeps a scripted
// judge deterministic under concurrency, as a fresh agent per case does for
// the agent under test.
func WithJudgeModelPerCase(f func(c *Case) helikon.Model) JudgeOption {
	return func(j *LLMJudge) { j.modelFor = f }
}

// NewLLMJudge returns a judge asking model to grade answers against rubric,
// passing scores of at least threshold (in [0, 1]).
func NewLLMJudge(model helikon.Model, rubric string, threshold float64, opts ...JudgeOption) (*LLMJudge, error) {
	switch {
	case model == nil:
		return nil, errors.New("evals: llm_judge: model is required")
	case strings.TrimSpace(rubric) == "":
		return nil, errors.New("evals: llm_judge: rubric is required")
	case math.IsNaN(threshold) || threshold < 0 || threshold > 1:
		return nil, fmt.Errorf("evals: llm_judge: threshold %v outside [0, 1]", threshold)
	}
	agent, err := newJudgeAgent(model, rubric)
	if err != nil {
		return nil, fmt.Errorf("evals: llm_judge: %w", err)
	}
	j := &LLMJudge{agent: agent, rubric: rubric, threshold: threshold}
	for _, o := range opts {
		o(j)
	}
	return j, nil
}

func newJudgeAgent(model helikon.Model, rubric string) (*helikon.LLMAgent, error) {
	return helikon.NewAgent("llm_judge", model,
		helikon.WithInstructions(judgeInstructions+rubric),
		helikon.WithOutput[Judgment]())
}

// Name returns "llm_judge".
func (*LLMJudge) Name() string { return "llm_judge" }

// Threshold returns the passing score.
func (j *LLMJudge) Threshold() float64 { return j.threshold }

// Evaluate asks the judge model for a grade.
func (j *LLMJudge) Evaluate(ctx context.Context, c *Case, out *Outcome) (Score, error) {
	var b strings.Builder
	b.WriteString("Task:\n")
	b.WriteString(c.Input)
	if c.Expected != nil {
		b.WriteString("\n\nReference answer:\n")
		b.Write(c.Expected)
	}
	b.WriteString("\n\nAssistant's answer:\n")
	b.WriteString(out.FinalOutput)
	agent := j.agent
	if j.modelFor != nil {
		m := j.modelFor(c)
		if m == nil {
			return Score{}, fmt.Errorf("llm_judge: no judge model for case %s", c.ID)
		}
		var err error
		if agent, err = newJudgeAgent(m, j.rubric); err != nil {
			return Score{}, fmt.Errorf("llm_judge: %w", err)
		}
	}
	res, err := helikon.CollectTyped[Judgment](agent.Run(ctx, helikon.NewRunContext(j.rcOpts...), helikon.UserText(b.String())))
	if err != nil {
		return Score{}, fmt.Errorf("llm_judge: %w", err)
	}
	g := res.Output
	if math.IsNaN(g.Score) || g.Score < 0 || g.Score > 1 {
		return Score{}, fmt.Errorf("llm_judge: the judge's score %v is outside [0, 1]", g.Score)
	}
	s := Fail(g.Score, g.Reasoning)
	if g.Score >= j.threshold {
		s.Verdict = Passed
	}
	s.Usage = res.Usage
	return s, nil
}
