package helikon

import (
	"context"
	"time"
)

// Defaults of [RunConfig].
const (
	DefaultMaxTurns      = 16
	DefaultMaxAgentDepth = 8
	// DefaultMaxToolCallsPerTurn and DefaultMaxTurnBytes bound one model
	// response ([RunConfig].MaxToolCallsPerTurn, [RunConfig].MaxTurnBytes):
	// far above what models send, low enough that a response that would
	// not end cannot exhaust the process.
	DefaultMaxToolCallsPerTurn = 256
	DefaultMaxTurnBytes        = 32 << 20
	// DefaultCancelGrace is how long a cancelled run waits for what
	// ignores its context ([RunConfig].CancelGrace).
	DefaultCancelGrace = time.Second
)

// RunConfig holds the per-run knobs; zero fields take their defaults. Set it
// with [WithRunConfig].
type RunConfig struct {
	// MaxTurns bounds the model calls of one agent's loop (default 16).
	MaxTurns int
	// ParallelToolCalls caps concurrently running tool calls; 0 = unbounded.
	ParallelToolCalls int
	// MaxAgentDepth bounds nesting across handoffs and sub-agents (default 8).
	MaxAgentDepth int
	// MaxToolCallsPerTurn bounds the tool calls of one model response
	// (default [DefaultMaxToolCallsPerTurn]), and MaxTurnBytes what one
	// response streams into the run: its text, reasoning and tool calls
	// (names, IDs and arguments) together, and 32 bytes an event beside,
	// so that a response of empty events ends too (default
	// [DefaultMaxTurnBytes]). A response past either fails the run with
	// an error matching [ErrTurnTooLarge] once it goes past, before any
	// of its calls runs: what a model or a provider streams is not
	// trusted to end.
	MaxToolCallsPerTurn int
	MaxTurnBytes        int
	Timeout             time.Duration // a deadline for the whole run (0: none)
	// CancelGrace bounds how long a cancelled run (its context cancelled,
	// its Timeout expired, or its consumer gone) still waits for a tool
	// call, a model stream, or the input guardrails running beside its
	// first model call, that ignore their context. When it expires the run
	// ends without them: their results are dropped and they are counted by
	// [Stragglers] until they return. 0 means [DefaultCancelGrace]; a
	// negative value waits for them without bound. A model that reports
	// [ModelCapabilities].HonoursCancellation and a tool that promises to
	// honour cancellation ([CancelAwareTool]) are trusted to return and
	// are not bounded by it. Nor is what the run calls on its own
	// goroutine, on every path: lifecycle hooks, blocking and output
	// guardrails, the tracer (the run's spans end there; OpenTelemetry
	// requires Span.End not to block) and the log handler.
	CancelGrace time.Duration
	// OnCheckpoint, when set, is called at every transition boundary of an
	// LLM agent's loop with the state a run can be resumed from; an error
	// ends the run. Durable runners persist here.
	OnCheckpoint func(ctx context.Context, cp *Checkpoint) error
}

func (c RunConfig) withDefaults() RunConfig {
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.MaxAgentDepth <= 0 {
		c.MaxAgentDepth = DefaultMaxAgentDepth
	}
	if c.MaxToolCallsPerTurn <= 0 {
		c.MaxToolCallsPerTurn = DefaultMaxToolCallsPerTurn
	}
	if c.MaxTurnBytes <= 0 {
		c.MaxTurnBytes = DefaultMaxTurnBytes
	}
	return c
}
