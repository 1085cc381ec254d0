package helikon

import "context"

// Instructions renders an agent's system prompt for a run.
type Instructions interface {
	Render(ctx context.Context, rc *RunContext) (string, error)
}

// StaticInstructions is fixed instruction text.
type StaticInstructions string

// Render returns the text.
func (s StaticInstructions) Render(context.Context, *RunContext) (string, error) {
	return string(s), nil
}

// InstructionsFunc renders instructions from the run, for example from
// run-scoped [State] written by an earlier workflow step.
type InstructionsFunc func(ctx context.Context, rc *RunContext) (string, error)

// Render calls f.
func (f InstructionsFunc) Render(ctx context.Context, rc *RunContext) (string, error) {
	return f(ctx, rc)
}
