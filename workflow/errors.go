package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
)

// Causes of a [helikon.BuildError] that only workflow agents have; match
// them with errors.Is. The core's causes, [helikon.ErrDuplicateKey] and
// [helikon.ErrInvalidOption], apply to them too.
var (
	// ErrNoSubAgents: a workflow, swarm or graph was given nothing to run.
	ErrNoSubAgents = errors.New("workflow: no sub-agents")
	// ErrUnknownKey: an edge or the swarm entry names no node or member.
	ErrUnknownKey = errors.New("workflow: unknown key")
	// ErrCycle: a graph's edges form a cycle.
	ErrCycle = errors.New("workflow: cycle")
)

// buildErr is a constructor's refusal of agent's configuration.
func buildErr(agent string, cause error, detail string, keys ...string) *helikon.BuildError {
	return &helikon.BuildError{Agent: agent, Err: cause, Keys: keys, Detail: detail}
}

func agentErrorf(kind helikon.ErrorKind, agent, format string, args ...any) *helikon.AgentError {
	return &helikon.AgentError{Kind: kind, Agent: agent, Message: fmt.Sprintf(format, args...)}
}

// cancelled wraps a context error as a Cancelled failure.
func cancelled(agent string, cause error) *helikon.AgentError {
	return &helikon.AgentError{Kind: helikon.KindCancelled, Agent: agent, Err: cause}
}

// kindOf classifies a child's failure as the core classifies a run's.
func kindOf(err error) helikon.ErrorKind {
	var (
		ae *helikon.AgentError
		me *helikon.ModelError
		te *helikon.ToolError
	)
	switch {
	case err == nil:
		return helikon.KindOther
	case errors.As(err, &ae):
		return ae.Kind
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return helikon.KindCancelled
	case errors.As(err, &me):
		return helikon.KindModel
	case errors.As(err, &te):
		return helikon.KindTool
	}
	return helikon.KindOther
}
