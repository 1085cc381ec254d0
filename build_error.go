package helikon

import (
	"errors"
	"strconv"
)

// Causes of a [BuildError]; match them with errors.Is.
var (
	// ErrNoSubAgents: a workflow, swarm or graph was given nothing to run.
	ErrNoSubAgents = errors.New("helikon: no sub-agents")
	// ErrDuplicateKey: two steps, branches, nodes or members share a key or
	// name, or two handoffs share a transfer tool.
	ErrDuplicateKey = errors.New("helikon: duplicate key")
	// ErrUnknownKey: an edge or the swarm entry names no node or member.
	ErrUnknownKey = errors.New("helikon: unknown key")
	// ErrCycle: a graph's edges form a cycle.
	ErrCycle = errors.New("helikon: cycle")
	// ErrInvalidOption: a nil agent, an empty name or an out-of-range limit.
	ErrInvalidOption = errors.New("helikon: invalid option")
)

// BuildError is why a constructor rejected an agent's configuration. It is
// returned before anything runs, so a misconfigured agent never reaches a
// model.
type BuildError struct {
	// Agent names the agent being built.
	Agent string
	// Err is the cause: [ErrNoSubAgents], [ErrDuplicateKey], [ErrUnknownKey],
	// [ErrCycle] or [ErrInvalidOption].
	Err error
	// Keys lists the keys at fault; for ErrCycle, the nodes of one cycle in
	// edge order.
	Keys []string
	// Detail explains the problem.
	Detail string
}

// Error describes the problem.
func (e *BuildError) Error() string {
	return "helikon: agent " + strconv.Quote(e.Agent) + ": " + e.Detail
}

// Unwrap returns the cause.
func (e *BuildError) Unwrap() error { return e.Err }

func buildErr(agent string, cause error, detail string, keys ...string) *BuildError {
	return &BuildError{Agent: agent, Err: cause, Keys: keys, Detail: detail}
}
