package helikon

import (
	"context"
	"encoding/json"
	"errors"
)

// SubRun is the run of an agent used as a tool ([AgentAsTool]) that a
// step-driven runner runs itself instead of inside the tool call: a durable
// runner runs it as a child workflow, so a crash does not repeat its
// finished steps. [Steps.DeferSubRuns] asks for it; [Steps.SettleSubRun]
// turns the run's outcome into the call's result.
type SubRun struct {
	Tool  string          `json:"tool"`           // the agent tool's name
	Agent string          `json:"agent"`          // the agent it runs
	Input string          `json:"input"`          // the call's input argument
	Args  json.RawMessage `json:"args,omitempty"` // as authorised; PostToolUse hooks see them
}

// deferKey is the context key of a step's [Steps.DeferSubRuns] choice.
type deferKey struct{}

// subRunDeferred is what a deferred agent tool's call returns instead of
// an output: the run its runner is to do.
type subRunDeferred struct{ run SubRun }

func (*subRunDeferred) Error() string { return "helikon: agent tool sub-run deferred to the runner" }

// deferred reports whether t's sub-run is for the runner to do, under ctx.
func deferred(ctx context.Context, t *AgentTool) bool {
	f, _ := ctx.Value(deferKey{}).(func(*AgentTool) bool)
	return f != nil && f(t)
}

// DeferSubRuns makes [Steps.CallTool] and [Steps.CallDecided] stop short of
// running the sub-agent of an agent tool for which runs reports true: after
// the call's hooks, permission pipeline and checks, the [ToolStep]'s SubRun
// names the run instead of a result, for [Steps.SettleSubRun]. It returns s.
func (s *Steps) DeferSubRuns(runs func(*AgentTool) bool) *Steps {
	s.defers = runs
	return s
}

func (s *Steps) deferring(ctx context.Context) context.Context {
	if s.defers == nil {
		return ctx
	}
	return context.WithValue(ctx, deferKey{}, s.defers)
}

// SettleSubRun settles a call whose sub-run (run, from a [ToolStep] of
// [Steps.CallTool]) the runner ran: it ended with output, or with failure
// (nil on success), having spent usage. It runs what the in-process agent
// tool runs after its sub-run: the OnSubagentStop hooks, then the
// PostToolUse hooks and redaction; a failure becomes a tool error the
// model sees.
func (s *Steps) SettleSubRun(ctx context.Context, call ToolCall, run SubRun, output string, usage Usage, failure error) ToolStep {
	var out callOutcome
	out.d = s.d
	tool, ok := s.d.toolIndex[call.Name].(*AgentTool)
	if !ok {
		return ToolStep{Result: errorResult(call, "tool "+call.Name+" is not an agent tool"), Usage: usage}
	}
	SubagentStopped(ctx, s.d.rc, tool.agent.Name())
	var o ToolOutput
	var err error
	if failure != nil {
		err = tool.failed(failure)
	} else {
		content, _ := json.Marshal(output) // a string always encodes
		o = ToolOutput{Content: content, Parts: []ContentPart{TextPart{Text: output}}}
	}
	s.d.settleCall(ctx, call, run.Args, o, err, &out)
	st := s.settled(call, &out, &usageSink{})
	st.Usage = usage
	return st
}

func asSubRunDeferred(err error) *SubRun {
	// Checked on every tool call: no error costs nothing (see asSubRunPaused).
	if err == nil {
		return nil
	}
	if d, ok := errors.AsType[*subRunDeferred](err); ok {
		return &d.run
	}
	return nil
}
