package cli

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"

	"github.com/chzyer/readline"

	"github.com/paigasus/helikon"
)

// asker answers the calls a paused run waits on, one decision each; an
// error (a question the user cancelled) ends the run.
type asker func(ctx context.Context, pending []helikon.PendingApproval) ([]helikon.Decision, error)

// drive shows a run's events and, each time it pauses for approval, asks
// about the waiting calls and resumes it with the answers on the agent
// build returns for the paused run's agent, until the run completes,
// fails or is cut short. rc must be the run's context.
func drive(ctx context.Context, rc *helikon.RunContext, events iter.Seq[helikon.Event], show func(iter.Seq[helikon.Event]) ending,
	build func(name string) (helikon.Agent, error), ask asker) ending {
	for {
		end := show(events)
		if end.paused == nil {
			return end
		}
		decisions, err := ask(ctx, end.paused.Pending)
		if err != nil {
			return ending{err: err}
		}
		agent, err := build(end.paused.Agent)
		if err != nil {
			return ending{err: err}
		}
		events = helikon.Resume(ctx, agent, rc, end.paused, decisions)
	}
}

// errDeclined ends a run whose approval question the user cancelled.
var errDeclined = errors.New("cancelled at the approval question")

// lineReader reads one line after showing prompt (the line editor's
// Readline with a temporary prompt).
type lineReader func(prompt string) (string, error)

// askOnTerminal asks about each waiting call on the terminal, saying what
// the call is with say and reading the answer with read: y or yes approves
// it, anything else (Enter, n, Ctrl-D) rejects it, and Ctrl-C cancels the
// run.
func askOnTerminal(say func(format string, args ...any), read lineReader) asker {
	return func(_ context.Context, pending []helikon.PendingApproval) ([]helikon.Decision, error) {
		out := make([]helikon.Decision, 0, len(pending))
		for _, p := range pending {
			what := p.Prompt
			if what == "" {
				what = p.Agent + " asks to call " + p.Tool
			}
			say("  ? %s %s", what, clip(string(p.Args)))
			line, err := read("    allow? [y/N] ")
			switch {
			case errors.Is(err, readline.ErrInterrupt):
				return nil, errDeclined
			case err != nil && !errors.Is(err, io.EOF):
				return nil, err
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				out = append(out, helikon.Approve(p.ID))
			default:
				out = append(out, helikon.Reject(p.ID, ""))
			}
		}
		return out, nil
	}
}
