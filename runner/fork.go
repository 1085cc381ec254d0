package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// ErrFork reports a fork that cannot start: a checkpoint that is not at a
// settled turn boundary, an edit that names nothing the conversation holds,
// a session that is not empty. It is wrapped with the reason.
var ErrFork = errors.New("runner: cannot fork")

// ForkEdit is what a fork changes at its boundary before it runs on. The
// zero value changes nothing: the fork replays the boundary's model call.
type ForkEdit struct {
	// Instructions, when set, replace the agent's instructions for the
	// fork.
	Instructions *string
	// UserMessage, when set, replaces the text of the conversation's last
	// user message (the run's question, at any boundary of its loop).
	UserMessage *string
	// ToolResults replace the output of the tool results they name by
	// call id with the given text (no longer an error, if it was one).
	ToolResults map[string]string
}

// Fork returns the checkpoint a fork runs from: cp, a settled turn
// boundary of a run (the loop about to call the model), with edit applied.
// It is pure: cp and its conversation are not modified, and no step of the
// run before the boundary runs again. Checkpoints come from
// [helikon.WithModelCallObserver] (each model call's) or
// [helikon.RunConfig].OnCheckpoint.
func Fork(cp *helikon.Checkpoint, edit ForkEdit) (*helikon.Checkpoint, error) {
	if cp == nil {
		return nil, fmt.Errorf("%w: no checkpoint", ErrFork)
	}
	if boundaryTurn(cp.State) == 0 {
		return nil, fmt.Errorf("%w: the checkpoint is in %T, not at a turn boundary (about to call the model)", ErrFork, cp.State)
	}
	out := *cp
	// The fork's usage counts its own calls only; what the run spent to
	// reach the boundary stays the original's.
	switch s := cp.State.(type) {
	case helikon.CallingModel:
		s.Usage = helikon.Usage{}
		out.State = s
	case helikon.Finalizing:
		s.Usage = helikon.Usage{}
		out.State = s
	case helikon.RepairingOutput:
		s.Usage = helikon.Usage{}
		out.State = s
	}
	out.Conversation = slices.Clone(cp.Conversation)
	out.Injections = slices.Clone(cp.Injections)
	if edit.UserMessage != nil {
		i := lastIndex(out.Conversation, func(it helikon.Item) bool { return it.Role == helikon.RoleUser })
		if i < 0 {
			return nil, fmt.Errorf("%w: the conversation has no user message to replace", ErrFork)
		}
		out.Conversation[i].Content = []helikon.ContentPart{helikon.TextPart{Text: *edit.UserMessage}}
	}
	if len(edit.ToolResults) > 0 {
		left := maps.Clone(edit.ToolResults)
		for i, it := range out.Conversation {
			if it.Role != helikon.RoleTool {
				continue
			}
			var parts []helikon.ContentPart
			for j, p := range it.Content {
				r, ok := p.(helikon.ToolResultPart)
				if !ok {
					continue
				}
				text, ok := left[r.CallID]
				if !ok {
					continue
				}
				delete(left, r.CallID)
				if parts == nil {
					parts = slices.Clone(it.Content)
				}
				r.Content, r.IsError = []helikon.ContentPart{helikon.TextPart{Text: text}}, false
				parts[j] = r
			}
			if parts != nil {
				out.Conversation[i].Content = parts
			}
		}
		if len(left) > 0 {
			return nil, fmt.Errorf("%w: no tool result for call %s before the boundary", ErrFork, strings.Join(slices.Sorted(maps.Keys(left)), ", "))
		}
	}
	return &out, nil
}

// boundaryTurn returns the turn of a state about to call the model, or 0
// for any other state.
func boundaryTurn(s helikon.LoopState) int {
	switch s := s.(type) {
	case helikon.CallingModel:
		return s.Turn
	case helikon.Finalizing:
		return s.Turn
	case helikon.RepairingOutput:
		return s.Turn
	}
	return 0
}

// lastIndex returns the index of the last element of s that f accepts, or
// -1.
func lastIndex(s []helikon.Item, f func(helikon.Item) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// ForkStreamed runs a fork of a run into a new run: [Fork] of cp with
// edit, resumed on agent (a copy with the edited instructions, if edit
// sets them) and recorded in rc's session, which must be empty: the
// fork's conversation up to the boundary is written to it first (a
// compaction's summary at its start as a compaction marker), so that the
// fork's session holds the whole forked conversation and later runs on it
// continue the fork. The original run and its session are not
// touched. The stream starts as a run's, with RunStarted and the
// TurnStarted of the boundary's turn, and is persisted as
// [Runner.RunStreamed]'s is.
func (r *Runner) ForkStreamed(ctx context.Context, agent *helikon.LLMAgent, rc *helikon.RunContext, cp *helikon.Checkpoint, edit ForkEdit) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if agent == nil {
			yield(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindConfig, Message: ErrNoAgent.Error(), Err: ErrNoAgent}})
			return
		}
		fail := func(err error) {
			yield(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindConfig, Agent: agent.Name(), Message: err.Error(), Err: err}})
		}
		fork, err := Fork(cp, edit)
		if err != nil {
			fail(err)
			return
		}
		if cp.Agent != agent.Name() {
			fail(fmt.Errorf("%w: the checkpoint is agent %s's, not %s's", ErrFork, cp.Agent, agent.Name()))
			return
		}
		if edit.Instructions != nil {
			if agent, err = agent.Clone(helikon.WithInstructions(*edit.Instructions)); err != nil {
				fail(fmt.Errorf("%w: %w", ErrFork, err))
				return
			}
		}
		ctx, rc, cancel, ok := prepare(ctx, agent, rc, yield)
		if !ok {
			return
		}
		defer cancel()
		history, err := rc.Session().Snapshot(ctx)
		if err != nil {
			yield(helikon.RunFailed{Err: loadError(ctx, agent, err)})
			return
		}
		if len(history) > 0 {
			fail(fmt.Errorf("%w: the fork's session already holds %d messages; a fork starts a new session", ErrFork, len(history)))
			return
		}
		turn := boundaryTurn(fork.State)
		resumed := agent.Resume(ctx, rc, fork)
		stream := func(yield func(helikon.Event) bool) {
			now := time.Now().UTC()
			if !yield(helikon.RunStarted{Agent: agent.Name(), At: now}) || !yield(helikon.TurnStarted{Agent: agent.Name(), Turn: turn, At: now}) {
				return
			}
			resumed(yield)
		}
		var lead []helikon.SessionEvent
		conv := fork.Conversation
		if len(conv) > 0 && conv[0].Role == helikon.RoleSystem {
			// A compacted run's summary (what a compaction marker
			// projects to) is kept as a marker of the fork's session:
			// later runs on it see the summary, and the written-file
			// record sees a summary of calls the session never held.
			lead = []helikon.SessionEvent{session.Compacted(conv[0].Text(), 0)}
			conv = conv[1:]
		}
		r.follow(ctx, agent, rc, stream, lead, conv, yield)
	}
}

// Fork runs a fork to its end; see [Runner.ForkStreamed].
func (r *Runner) Fork(ctx context.Context, agent *helikon.LLMAgent, rc *helikon.RunContext, cp *helikon.Checkpoint, edit ForkEdit) (*helikon.RunResult, error) {
	return helikon.Collect(r.ForkStreamed(ctx, agent, rc, cp, edit))
}
