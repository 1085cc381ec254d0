package temporal

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/paigasus/helikon"
)

// The activity names the workflow schedules.
const (
	activityStartRun  = "helikon.StartRun"
	activityCallModel = "helikon.CallModel"
	activityTool      = "helikon.InvokeTool"
	activityHook      = "helikon.Hook"
	activityFinish    = "helikon.FinishRun"
	activitySettle    = "helikon.SettleSubRun"
)

// activities are the steps of a durable run, served by a [Worker]. Each
// runs one [helikon.Steps] step under the worker's posture.
type activities struct {
	reg *registry
	// heartbeat, when set, is how often a running step reports that its
	// worker is alive.
	heartbeat time.Duration
	// children makes a tool step stop short of an agent tool's sub-run
	// that the registry runs as a child workflow (see
	// [helikon.Steps.DeferSubRuns]); the workflow runs it.
	children bool
}

// steps resolves a step's agent and user value. A bad seed or an unknown
// agent is not retryable: no retry can fix it.
func (a *activities) steps(ctx context.Context, in stepIn) (*helikon.Steps, error) {
	s, err := a.reg.steps(ctx, in)
	if err != nil {
		typ := "config"
		if errors.Is(err, ErrBadSeed) {
			typ = "bad_seed"
		}
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), typ, err)
	}
	return s, nil
}

// StartRun renders the agent's instructions and runs the checks before the
// first turn: the input guardrails and the OnRunStart hooks.
func (a *activities) StartRun(ctx context.Context, in startIn) (startOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return startOut{}, err
	}
	defer a.beat(ctx)()
	system, err := s.RenderSystem(ctx)
	if err != nil {
		return startOut{Failure: events{helikon.RunFailed{Err: err}}}, nil
	}
	inject, failure := s.Start(ctx, in.Input)
	return startOut{System: system, Inject: inject, Failure: failure}, nil
}

// CallModel runs one model turn. A model error is returned as data, so
// Temporal does not retry it (wrap the model in the retry package for
// that); a crashed worker's turn is retried.
func (a *activities) CallModel(ctx context.Context, in modelIn) (modelOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return modelOut{}, err
	}
	defer a.beat(ctx)()
	switch r := s.CallModel(ctx, in.Turn, in.Request, in.Inject, nil).(type) {
	case helikon.ModelResponse:
		return modelOut{Response: &r}, nil
	case helikon.Abort:
		return modelOut{Err: agentError(r.Err, in.Agent.Name)}, nil
	default:
		return modelOut{Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: in.Agent.Name, Message: "model step returned nothing"}}, nil
	}
}

// InvokeTool runs one tool call through the worker's governance. A tool's
// failure is data in the result and never fails the activity.
func (a *activities) InvokeTool(ctx context.Context, in toolIn) (toolOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return toolOut{}, err
	}
	defer a.beat(ctx)()
	if a.children {
		s.DeferSubRuns(func(t *helikon.AgentTool) bool { return a.reg.runsAsChild(in.Agent.Name, t) })
	}
	var st helikon.ToolStep
	if in.Decision != nil && in.Pending != nil {
		st = s.CallDecided(ctx, in.Call, *in.Pending, in.Args, *in.Decision)
	} else {
		st = s.CallTool(ctx, in.Call)
	}
	return outOf(st), nil
}

// SettleSubRun settles an agent tool's call whose sub-run ran as a child
// workflow: the OnSubagentStop hooks, the PostToolUse hooks and redaction,
// as the in-process agent tool runs them after its sub-run.
func (a *activities) SettleSubRun(ctx context.Context, in settleIn) (toolOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return toolOut{}, err
	}
	var failure error
	if in.Err != nil {
		failure = in.Err
	}
	return outOf(s.SettleSubRun(ctx, in.Call, in.Run, in.Output, in.Usage, failure)), nil
}

// Hook fires the hooks of a lifecycle event the workflow drives.
func (a *activities) Hook(ctx context.Context, in hookIn) (hookOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return hookOut{}, err
	}
	defer a.beat(ctx)()
	denied, reason, _ := s.Hook(ctx, &in.Event)
	return hookOut{Denied: denied, Reason: reason}, nil
}

// FinishRun runs the output guardrails and the OnRunComplete hooks.
func (a *activities) FinishRun(ctx context.Context, in finishIn) (finishOut, error) {
	s, err := a.steps(ctx, in.stepIn)
	if err != nil {
		return finishOut{}, err
	}
	defer a.beat(ctx)()
	return finishOut{Failure: s.Finish(ctx, in.Output, in.HandedOff)}, nil
}

// beat heartbeats the running activity every half heartbeat interval until
// the returned stop is called; it does nothing when heartbeats are off.
func (a *activities) beat(ctx context.Context) (stop func()) {
	if a.heartbeat <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(a.heartbeat / 2)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// agentError returns err as an AgentError of agent, which crosses a
// payload with its kind.
func agentError(err error, agent string) *helikon.AgentError {
	var ae *helikon.AgentError
	if errors.As(err, &ae) {
		return ae
	}
	return &helikon.AgentError{Kind: helikon.KindOther, Agent: agent, Message: err.Error()}
}
