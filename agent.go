package helikon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/paigasus/helikon/internal/coredefault"
)

// Agent is anything that runs: the LLM agent, workflow agents, and your own.
// Run streams the run's events; a failure, including one to start, arrives
// as a [RunFailed]. The stream ends with exactly one [RunCompleted],
// [RunFailed] or [RunPaused] unless the consumer stops early, which stops
// the run and leaves no goroutine behind. A cancelled ctx ends the run with
// a Cancelled failure unless a terminal outcome was already reached.
type Agent interface {
	Name() string
	Description() string
	Run(ctx context.Context, rc *RunContext, input []Item) iter.Seq[Event]
}

// Runner is an execution backend: it drives an agent to completion, adding
// whatever its runtime provides (session persistence, durability, timeouts).
type Runner interface {
	Run(ctx context.Context, agent Agent, rc *RunContext, input []Item) (*RunResult, error)
	RunStreamed(ctx context.Context, agent Agent, rc *RunContext, input []Item) iter.Seq[Event]
}

// AgentOption configures an agent built by [NewAgent].
type AgentOption interface {
	applyAgent(*LLMAgent)
}

type agentOptionFunc func(*LLMAgent)

func (f agentOptionFunc) applyAgent(a *LLMAgent) { f(a) }

// WithDescription sets what an agent does; handoff and agent tools show it
// to the routing model. It configures [NewAgent], [AgentAsTool] and the
// constructors of package workflow.
func WithDescription(d string) DescriptionOption { return DescriptionOption{d} }

// DescriptionOption is the option [WithDescription] returns.
type DescriptionOption struct{ d string }

func (o DescriptionOption) applyAgent(a *LLMAgent) { a.description = o.d }

// WithInstructions sets fixed instruction text.
func WithInstructions(text string) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.instructions = StaticInstructions(text) })
}

// WithInstructionsFunc sets instructions rendered per run.
func WithInstructionsFunc(f func(ctx context.Context, rc *RunContext) (string, error)) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.instructions = InstructionsFunc(f) })
}

// WithInstructionsFrom sets any [Instructions] implementation.
func WithInstructionsFrom(in Instructions) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.instructions = in })
}

// WithTools appends tools.
func WithTools(tools ...Tool) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.tools = append(a.tools, tools...) })
}

// WithToolSources resolves sources with [ResolveTools] (bounded by ctx)
// while the agent is built and appends their tools; a failure fails
// [NewAgent]. The sources are asked again before every model call, so a
// changed list shows on the next turn; a source that fails then keeps its
// last list, and a tool whose name is taken is left out (both logged).
func WithToolSources(ctx context.Context, sources ...ToolSource) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) {
		tools, err := ResolveTools(ctx, sources...)
		if err != nil {
			a.optErrs = append(a.optErrs, err)
			return
		}
		a.tools = append(a.tools, tools...)
		a.sources = append(a.sources, sources...)
		if a.fromSources == nil {
			a.fromSources = make(map[string]bool, len(tools))
		}
		for _, t := range tools {
			a.fromSources[t.Name()] = true
		}
	})
}

// WithSettings sets the model settings of every turn.
func WithSettings(s ModelSettings) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.settings = s })
}

// WithOutput makes the agent answer with a T: the final turn asks for T's
// JSON Schema, the answer is validated (with one repair turn on a miss), and
// [CollectTyped] decodes it. The last WithOutput wins.
func WithOutput[T any]() AgentOption {
	return agentOptionFunc(func(a *LLMAgent) {
		ot, err := OutputTypeOf[T]()
		if err != nil {
			a.optErrs = append(a.optErrs, err)
			return
		}
		a.output = ot
	})
}

// WithOutputType sets a prepared [OutputType].
func WithOutputType(ot *OutputType) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.output = ot })
}

// WithHooks appends agent-level hooks; they fire before run-level ones.
func WithHooks(hooks ...Hook) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.hooks = append(a.hooks, hooks...) })
}

// WithInputGuardrails appends guardrails that check the user's text.
func WithInputGuardrails(g ...Guardrail) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.inputGuards = append(a.inputGuards, g...) })
}

// WithOutputGuardrails appends guardrails that check the final answer.
func WithOutputGuardrails(g ...Guardrail) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.outputGuards = append(a.outputGuards, g...) })
}

// WithBlockingInputGuardrails makes the input guardrails finish before the
// first model call starts. By default they run beside it, its events held
// back until they pass and a tripwire cancelling it: no added latency, and
// nothing leaks.
func WithBlockingInputGuardrails() AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.blockingInput = true })
}

// RunConfigOption sets a [RunConfig] on an agent ([NewAgent]), a run
// ([NewRunContext], which wins) or an agent tool's sub-run ([AgentAsTool]).
type RunConfigOption struct{ cfg RunConfig }

// WithRunConfig sets the run knobs.
func WithRunConfig(cfg RunConfig) RunConfigOption { return RunConfigOption{cfg} }

func (o RunConfigOption) applyAgent(a *LLMAgent)      { c := o.cfg; a.config = &c }
func (o RunConfigOption) applyContext(rc *RunContext) { c := o.cfg; rc.config = &c }

// LLMAgent is the model-driven [Agent], looping model turns and tool calls
// until the model answers. [NewAgent] builds it; it is safe for concurrent runs.
type LLMAgent struct {
	name, description string
	model             Model
	instructions      Instructions
	staticSystem      []Item // instructions rendered once when static
	tools             []Tool
	toolIndex         map[string]Tool
	toolDefs          []ToolDef
	sources           []ToolSource
	fromSources       map[string]bool // the tools sources offered at build time
	handoffs          []Handoff
	handoffIndex      map[string]*Handoff
	handoffNames      map[string]string
	settings          ModelSettings
	output            *OutputType
	hooks             []Hook
	inputGuards       []Guardrail
	outputGuards      []Guardrail
	blockingInput     bool
	config            *RunConfig
	optErrs           []error
}

// NewAgent builds an LLM agent. name and model are required; tool and
// handoff names must be unique.
func NewAgent(name string, model Model, opts ...AgentOption) (*LLMAgent, error) {
	if name == "" {
		return nil, errors.New("helikon: agent name is required")
	}
	if model == nil {
		return nil, fmt.Errorf("helikon: agent %q: model is required", name)
	}
	a := &LLMAgent{name: name, model: model}
	for _, o := range opts {
		o.applyAgent(a)
	}
	if err := errors.Join(a.optErrs...); err != nil {
		return nil, fmt.Errorf("helikon: agent %q: %w", name, err)
	}
	a.toolIndex = make(map[string]Tool, len(a.tools))
	for _, t := range a.tools {
		if t == nil {
			return nil, fmt.Errorf("helikon: agent %q: nil tool", name)
		}
		if _, dup := a.toolIndex[t.Name()]; dup {
			return nil, fmt.Errorf("helikon: agent %q: two tools are named %q", name, t.Name())
		}
		a.toolIndex[t.Name()] = t
		if coredefault.CheckTool != nil {
			coredefault.CheckTool(name, t)
		}
		a.toolDefs = append(a.toolDefs, ToolDef{Name: t.Name(), Description: t.Description(), Parameters: t.InputSchema()})
	}
	if err := a.indexHandoffs(); err != nil {
		return nil, err
	}
	if s, ok := a.instructions.(StaticInstructions); ok && s != "" {
		a.staticSystem = []Item{SystemItem(string(s))}
	}
	return a, nil
}

// Name returns the agent's name.
func (a *LLMAgent) Name() string { return a.name }

// Description returns what the agent does.
func (a *LLMAgent) Description() string { return a.description }

// Model returns the agent's model.
func (a *LLMAgent) Model() Model { return a.model }

// Tools returns the agent's tools (handoff tools excluded).
func (a *LLMAgent) Tools() []Tool { return a.tools }

// Handoffs returns the agent's handoffs.
func (a *LLMAgent) Handoffs() []Handoff { return a.handoffs }

// Output returns the agent's output type, or nil for plain text.
func (a *LLMAgent) Output() *OutputType { return a.output }

// Clone returns a copy of a with opts applied on top of its configuration.
func (a *LLMAgent) Clone(opts ...AgentOption) (*LLMAgent, error) {
	all := []AgentOption{
		WithDescription(a.description), WithInstructionsFrom(a.instructions),
		WithTools(a.tools...), WithHandoffs(a.handoffs...), WithSettings(a.settings),
		WithOutputType(a.output), WithHooks(a.hooks...),
		WithInputGuardrails(a.inputGuards...), WithOutputGuardrails(a.outputGuards...),
	}
	if a.config != nil {
		all = append(all, WithRunConfig(*a.config))
	}
	if len(a.sources) > 0 {
		all = append(all, agentOptionFunc(func(c *LLMAgent) { c.sources, c.fromSources = a.sources, a.fromSources }))
	}
	if a.blockingInput {
		all = append(all, WithBlockingInputGuardrails())
	}
	return NewAgent(a.name, a.model, append(all, opts...)...)
}

// effectiveConfig is the run's config, else the agent's.
func (a *LLMAgent) effectiveConfig(rc *RunContext) RunConfig {
	if c := cmp.Or(rc.config, a.config); c != nil {
		return c.withDefaults()
	}
	return RunConfig{}.withDefaults()
}

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
