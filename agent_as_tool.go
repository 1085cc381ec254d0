package helikon

import (
	"encoding/json"
	"fmt"
	"iter"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/internal/slug"
)

// AgentTool is an [Agent] exposed as a [Tool] ([AgentAsTool]): the agent
// runs on the one string argument, input, as a user message, and its final
// output is the tool's. Control always returns to the caller, unlike a
// [Handoff].
//
// The sub-run is isolated as [ToolContext.SubRunContext] describes, under
// its own [RunConfig] and one level deeper, still bounded by the caller's
// MaxAgentDepth. An escalation inside it counts as the tool's own; its
// usage is folded into the caller's and counts against the run's budget.
// While the call runs, the sub-run's settled events reach the caller's
// stream wrapped in [SubRunEvent]s. A failed sub-run becomes a tool error
// the calling model sees; it does not fail the caller's run.
type AgentTool struct {
	agent             Agent
	name, description string
	config            *RunConfig
	call              Tool // validates the arguments, then runs the agent
}

// AgentToolOption configures [AgentAsTool]: [WithToolName],
// [WithDescription] and [WithRunConfig] (the sub-run's configuration).
type AgentToolOption interface {
	applyAgentTool(*AgentTool)
}

type agentToolOptionFunc func(*AgentTool)

func (f agentToolOptionFunc) applyAgentTool(t *AgentTool) { f(t) }

// WithToolName sets the name the model calls an [AgentTool] by.
func WithToolName(name string) AgentToolOption {
	return agentToolOptionFunc(func(t *AgentTool) { t.name = name })
}

func (o DescriptionOption) applyAgentTool(t *AgentTool) { t.description = o.d }

func (o RunConfigOption) applyAgentTool(t *AgentTool) { c := o.cfg; t.config = &c }

type agentToolArgs struct {
	Input string `json:"input" jsonschema:"the request for the agent, in plain language"`
}

// AgentAsTool exposes agent as a [Tool], named after the agent (a slug of
// its name when that is no valid tool name) and described as it is. Its
// effect is [ReadOnly]: every tool the sub-agent calls passes the caller's
// permission configuration on its own.
//
//	summarizer, err := helikon.AgentAsTool(summarizerAgent)
//	writer, err := helikon.NewAgent("writer", model, helikon.WithTools(summarizer))
func AgentAsTool(agent Agent, opts ...AgentToolOption) (*AgentTool, error) {
	if agent == nil {
		return nil, buildErr("", ErrInvalidOption, "agent tool: agent is nil")
	}
	t := &AgentTool{agent: agent, name: agent.Name(), description: agent.Description()}
	if !toolNamePattern().MatchString(t.name) {
		t.name = slug.Make(t.name)
	}
	for _, o := range opts {
		o.applyAgentTool(t)
	}
	call, err := NewTool(t.name, t.description, t.run, WithEffect(ReadOnly))
	if err != nil {
		return nil, fmt.Errorf("helikon: agent tool for %q: %w", agent.Name(), err)
	}
	t.call = call
	return t, nil
}

// Agent returns the wrapped agent.
func (t *AgentTool) Agent() Agent { return t.agent }

// Name returns the tool name.
func (t *AgentTool) Name() string { return t.name }

// Description returns the tool description.
func (t *AgentTool) Description() string { return t.description }

// InputSchema returns the schema of the single string argument input.
func (t *AgentTool) InputSchema() *jsonschema.Schema { return t.call.InputSchema() }

// RunConfig returns the sub-run's configuration set with [WithRunConfig],
// and whether one was set (without one the sub-agent's own applies).
func (t *AgentTool) RunConfig() (RunConfig, bool) {
	if t.config == nil {
		return RunConfig{}, false
	}
	return *t.config, true
}

// Effect returns ReadOnly; see [AgentAsTool].
func (t *AgentTool) Effect() ToolEffect { return ReadOnly }

// Call runs the agent on the input argument and returns its final output.
func (t *AgentTool) Call(tc *ToolContext, args json.RawMessage) (ToolOutput, error) {
	return t.call.Call(tc, args)
}

func (t *AgentTool) run(tc *ToolContext, in agentToolArgs) (ToolOutput, error) {
	sub, err := t.subContext(tc)
	if err != nil {
		return ToolOutput{}, err
	}
	if deferred(tc, t) {
		return ToolOutput{}, &subRunDeferred{run: SubRun{Tool: t.name, Agent: t.agent.Name(), Input: in.Input}}
	}
	return t.follow(tc, sub, t.agent.Run(tc, sub, UserText(in.Input)))
}

func (t *AgentTool) resumeCall(tc *ToolContext, f *PauseFrame, ds *Decisions) (ToolOutput, error) {
	r, ok := t.agent.(Resumer)
	if !ok {
		return ToolOutput{}, t.failed(NotResumable(t.agent.Name(), f))
	}
	sub, err := t.subContext(tc)
	if err != nil {
		return ToolOutput{}, err
	}
	return t.follow(tc, sub, r.ResumeFrame(tc, sub, f, ds))
}

// subContext derives the sub-run's context, refusing one nested too deep.
func (t *AgentTool) subContext(tc *ToolContext) (*RunContext, error) {
	sub := tc.SubRunContext()
	sub.config = t.config
	// The caller's effective depth bound crosses, whichever configuration
	// (the run's or the calling agent's own) set it.
	if tc.depthLimit > 0 {
		sub.depthBound = tc.depthLimit
	}
	if sub.depthBound > 0 && sub.depth > sub.depthBound {
		return nil, t.failed(agentErrorf(KindMaxAgentDepthExceeded, t.agent.Name(), "depth %d exceeds %d", sub.depth, sub.depthBound))
	}
	return sub, nil
}

// follow drains the sub-run's stream into the tool's answer, forwarding
// its settled events into the caller's stream as [SubRunEvent]s. A sub-run
// that paused pauses the call: the calling loop keeps its frame.
func (t *AgentTool) follow(tc *ToolContext, sub *RunContext, stream iter.Seq[Event]) (ToolOutput, error) {
	var o ChildOutcome
	for ev := range stream {
		o.See(ev)
		if tc.call != nil && forwards(ev) {
			// The sub-run's time, or now for an agent that sends an event
			// without one: every event of the calling run carries its time.
			at := EventTime(ev)
			if at.IsZero() {
				at = now()
			}
			tc.call.emit(SubRunEvent{CallID: tc.CallID, Tool: t.name, Agent: t.agent.Name(), Event: ev, At: at})
		}
	}
	o.End(t.agent.Name())
	if o.Paused != nil {
		return ToolOutput{}, &subRunPaused{frame: o.Paused.root}
	}
	if sub.actions.Escalated() {
		tc.rc.actions.Escalate()
	}
	SubagentStopped(tc, tc.rc, t.agent.Name())
	if o.Err != nil {
		return ToolOutput{}, t.failed(o.Err)
	}
	content, _ := json.Marshal(o.Final) // a string always encodes
	return ToolOutput{Content: content, Parts: []ContentPart{TextPart{Text: o.Final}}}, nil
}

// failed wraps a sub-run failure so that the caller's loop reports it as
// this tool's failure, not as whatever tool error may lie inside it.
func (t *AgentTool) failed(err error) *ToolError {
	return &ToolError{Kind: ToolFailed, Tool: t.name, Err: err}
}
