package helikon

import (
	"errors"
	"strconv"
)

// Causes of a [BuildError] in the core (package workflow has its own);
// match them with errors.Is.
var (
	// ErrDuplicateKey: two steps, branches, nodes or members share a key or
	// name, or two handoffs share a transfer tool.
	ErrDuplicateKey = errors.New("helikon: duplicate key")
	// ErrInvalidOption: a nil agent, an empty name or an out-of-range limit.
	ErrInvalidOption = errors.New("helikon: invalid option")
)

// BuildError is why a constructor rejected an agent's configuration, before
// anything runs.
type BuildError struct {
	Agent string
	// Err is the cause: [ErrDuplicateKey], [ErrInvalidOption], or one of
	// package workflow's.
	Err error
	// Keys lists the keys at fault; for a graph's cycle, the nodes of one
	// cycle in edge order.
	Keys   []string
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
