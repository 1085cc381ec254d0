package helikon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrorKind classifies why a run failed.
type ErrorKind string

// The run failure kinds.
const (
	KindMaxTurnsExceeded        ErrorKind = "max_turns_exceeded"
	KindMaxAgentDepthExceeded   ErrorKind = "max_agent_depth_exceeded"
	KindMaxIterationsExceeded   ErrorKind = "max_iterations_exceeded"
	KindMaxHandoffsExceeded     ErrorKind = "max_handoffs_exceeded"
	KindInvalidStructuredOutput ErrorKind = "invalid_structured_output"
	KindCancelled               ErrorKind = "cancelled"
	KindModel                   ErrorKind = "model"
	KindTool                    ErrorKind = "tool"
	KindGuardrail               ErrorKind = "guardrail"
	KindHook                    ErrorKind = "hook"
	KindConfig                  ErrorKind = "config"
	KindBudgetExceeded          ErrorKind = "budget_exceeded"
	KindOther                   ErrorKind = "other"
)

// AgentError is why a run failed. Match kinds with errors.Is against the
// sentinels ([ErrMaxTurnsExceeded], …); the cause is reachable with
// errors.As (a [*ModelError], a [*ToolError], context.Canceled, …).
type AgentError struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message,omitempty"`
	Agent   string    `json:"agent,omitempty"` // whose run failed
	// SchemaErrors and FinalText describe an invalid structured output.
	SchemaErrors []string `json:"schema_errors,omitempty"`
	FinalText    string   `json:"final_text,omitempty"`
	Err          error    `json:"-"`
}

// Error describes the failure.
func (e *AgentError) Error() string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(string(e.Kind), "_", " "))
	if e.Agent != "" {
		b.WriteString(" (agent " + e.Agent + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.SchemaErrors) > 0 {
		b.WriteString(": " + strings.Join(e.SchemaErrors, "; "))
	}
	if e.Err != nil && e.Message != e.Err.Error() {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *AgentError) Unwrap() error { return e.Err }

// Is matches the kind sentinels.
func (e *AgentError) Is(target error) bool {
	t, ok := target.(*AgentError)
	return ok && t.Message == "" && t.Agent == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is on [AgentError] kinds.
var (
	ErrMaxTurnsExceeded        = &AgentError{Kind: KindMaxTurnsExceeded}
	ErrMaxAgentDepthExceeded   = &AgentError{Kind: KindMaxAgentDepthExceeded}
	ErrMaxIterationsExceeded   = &AgentError{Kind: KindMaxIterationsExceeded}
	ErrMaxHandoffsExceeded     = &AgentError{Kind: KindMaxHandoffsExceeded}
	ErrInvalidStructuredOutput = &AgentError{Kind: KindInvalidStructuredOutput}
	ErrCancelled               = &AgentError{Kind: KindCancelled}
	ErrGuardrailTripped        = &AgentError{Kind: KindGuardrail}
	ErrBudgetExceeded          = &AgentError{Kind: KindBudgetExceeded}
)

func toAgentError(err error) *AgentError {
	if err == nil {
		return &AgentError{Kind: KindOther, Message: "unknown failure"}
	}
	if ae, ok := errors.AsType[*AgentError](err); ok {
		if ae.Message == "" && ae.Err != nil {
			c := *ae
			c.Message = ae.Err.Error()
			return &c
		}
		return ae
	}
	kind := KindOther
	var me *ModelError
	var te *ToolError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		kind = KindCancelled
	case errors.As(err, &me):
		kind = KindModel
	case errors.As(err, &te):
		kind = KindTool
	}
	return &AgentError{Kind: kind, Message: err.Error(), Err: err}
}

func cancelled(agent string, cause error) *AgentError {
	return &AgentError{Kind: KindCancelled, Agent: agent, Err: cause}
}

func agentErrorf(kind ErrorKind, agent, format string, args ...any) *AgentError {
	return &AgentError{Kind: kind, Agent: agent, Message: fmt.Sprintf(format, args...)}
}

// ErrTurnTooLarge is the cause of a run's [KindModel] failure when one model
// response went past [RunConfig].MaxToolCallsPerTurn or
// [RunConfig].MaxTurnBytes.
var ErrTurnTooLarge = errors.New("helikon: model response too large")

// ErrInvalidUsage is the cause of a run's [KindModel] failure when its
// model reported a [Usage] with a count or a cost below zero, or a cost
// that is not a finite number.
var ErrInvalidUsage = errors.New("helikon: the model reported an invalid usage")

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
