package helikon

import (
	"context"
	"iter"
)

// HistoryRunner is an [Agent] that can run over a history and an input
// given apart. The runner of package runner uses it for a run on a session
// whose history is not empty.
type HistoryRunner interface {
	Agent
	// RunWithHistory streams one run over history followed by input, as
	// Run over the two in one slice does. It must not write to history:
	// the caller may share it with other runs.
	RunWithHistory(ctx context.Context, rc *RunContext, history, input []Item) iter.Seq[Event]
}

// RunWithHistory implements [HistoryRunner]: the run lays history and
// input out in its own conversation in one copy, so a session's cached
// history (package session/sessioncache) is shared by every run on the
// session instead of copied twice into each.
func (a *LLMAgent) RunWithHistory(ctx context.Context, rc *RunContext, history, input []Item) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		d := a.newDriver(orEphemeral(rc))
		d.start(ctx, history, input, yield)
	}
}
