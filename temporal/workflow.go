package temporal

import (
	"encoding/json"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
)

// The names a client and a worker agree on.
const (
	// WorkflowName is the agent-run workflow's registered name.
	WorkflowName = "helikon.AgentRun"
	// EventsQuery is the query that returns a run's events from an offset.
	EventsQuery = "helikon.events"
)

// stepTimeouts are the activity timeouts of a worker's steps.
type stepTimeouts struct {
	model, tool, other time.Duration
	heartbeat          time.Duration
	retryInterval      time.Duration
	// toolAttempts caps the attempts of named tools (0: Temporal's
	// default, unlimited).
	toolAttempts map[string]int32
}

// agentWorkflow is the workflow a [Worker] registers.
type agentWorkflow struct {
	reg      *registry
	timeouts stepTimeouts
}

// run is the agent-run workflow: a thin deterministic adapter that runs
// runLoop with every step as an activity. It keeps the run's events for the
// events query and returns the run's outcome.
func (w *agentWorkflow) run(ctx workflow.Context, in runInput) (runOutput, error) {
	h := &workflowHost{ctx: ctx, w: w, seed: in.Seed}
	if err := workflow.SetQueryHandler(ctx, EventsQuery, h.page); err != nil {
		return runOutput{}, err
	}
	res := runLoop(h, agentRef{Name: in.Agent}, in.Input, false)
	out := runOutput{Output: res.Output, LastAgent: h.lastAgent, Usage: res.Usage, Events: len(h.events)}
	if res.Err != nil {
		out.Err = agentError(res.Err, in.Agent)
	}
	return out, nil
}

// workflowHost runs a run's steps as activities.
type workflowHost struct {
	ctx    workflow.Context
	w      *agentWorkflow
	seed   json.RawMessage
	events []json.RawMessage
	// lastAgent names the agent of the last assistant message.
	lastAgent string
}

func (h *workflowHost) page(from int) (eventPage, error) {
	if from < 0 || from > len(h.events) {
		return eventPage{}, errors.New("temporal: events offset out of range")
	}
	// The encoded events are decoded again here, not held decoded, so the
	// workflow keeps one copy of each.
	var p eventPage
	for _, raw := range h.events[from:] {
		ev, err := helikon.UnmarshalEvent(raw)
		if err != nil {
			return eventPage{}, err
		}
		p.Events = append(p.Events, ev)
	}
	p.Next = len(h.events)
	return p, nil
}

func (h *workflowHost) emit(ev helikon.Event) {
	if m, ok := ev.(helikon.MessageOutput); ok {
		h.lastAgent = m.Item.Agent
	}
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindOther, Message: "event does not encode: " + err.Error()}})
	}
	h.events = append(h.events, b)
}

func (h *workflowHost) in(a agentRef) stepIn { return stepIn{Agent: a, Seed: h.seed} }

func (h *workflowHost) options(timeout time.Duration, attempts int32) workflow.Context {
	return workflow.WithActivityOptions(h.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    h.w.timeouts.heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: h.w.timeouts.retryInterval, MaximumAttempts: attempts},
	})
}

// local is the context of the short steps around the loop (StartRun, Hook,
// FinishRun): local activities, which run on the workflow's own worker and
// are recorded with its next task, saving a round trip through the task
// queue. They are retried like any activity.
func (h *workflowHost) local() workflow.Context {
	return workflow.WithLocalActivityOptions(h.ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: h.w.timeouts.other,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: h.w.timeouts.retryInterval},
	})
}

func (h *workflowHost) plan(a agentRef) (helikon.TransitionCtx, int, error) {
	return h.w.reg.plan(a)
}

func (h *workflowHost) start(a agentRef, input []helikon.Item) ([]helikon.Item, []string, []helikon.Event) {
	var out startOut
	err := workflow.ExecuteLocalActivity(h.local(), activityStartRun, startIn{stepIn: h.in(a), Input: input}).Get(h.ctx, &out)
	if err != nil {
		return nil, nil, []helikon.Event{helikon.RunFailed{Err: stepError(err, a.Name)}}
	}
	return out.System, out.Inject, out.Failure
}

func (h *workflowHost) callModel(a agentRef, turn int, req *helikon.ModelRequest, inject []string) helikon.TransitionInput {
	var out modelOut
	err := workflow.ExecuteActivity(h.options(h.w.timeouts.model, 0), activityCallModel, modelIn{stepIn: h.in(a), Turn: turn, Request: req, Inject: inject}).Get(h.ctx, &out)
	if err != nil {
		return helikon.Abort{Err: stepError(err, a.Name)}
	}
	return out.input()
}

// runTools runs the calls as concurrent activities, at most parallel at a
// time, each starting as soon as a slot frees.
func (h *workflowHost) runTools(a agentRef, calls []helikon.ToolCall, parallel int) []helikon.ToolStep {
	out := make([]helikon.ToolStep, len(calls))
	if parallel <= 0 || parallel > len(calls) {
		parallel = len(calls)
	}
	sel := workflow.NewSelector(h.ctx)
	next := 0
	var launch func()
	launch = func() {
		i := next
		next++
		c := calls[i]
		f := workflow.ExecuteActivity(h.options(h.w.timeouts.tool, h.w.timeouts.toolAttempts[c.Name]), activityTool, toolIn{stepIn: h.in(a), Call: c})
		sel.AddFuture(f, func(f workflow.Future) {
			var r toolOut
			if err := f.Get(h.ctx, &r); err != nil {
				// A call whose every attempt failed (its worker crashed
				// and it allows no retry, or it timed out) reports that
				// to the model, as a tool's own failure would.
				r = toolOut{Result: helikon.ToolResult{CallID: c.CallID, Name: c.Name, IsError: true,
					Content: []helikon.ContentPart{helikon.TextPart{Text: "tool call failed: " + stepError(err, a.Name).Error()}}}}
			}
			out[i] = helikon.ToolStep{Result: r.Result, Events: r.Events, Inject: r.Inject}
			if next < len(calls) {
				launch()
			}
		})
	}
	for range parallel {
		launch()
	}
	for range calls {
		sel.Select(h.ctx)
	}
	return out
}

func (h *workflowHost) hook(a agentRef, ev *helikon.HookEvent) (bool, string) {
	var out hookOut
	if err := workflow.ExecuteLocalActivity(h.local(), activityHook, hookIn{stepIn: h.in(a), Event: *ev}).Get(h.ctx, &out); err != nil {
		return true, "hook step failed: " + stepError(err, a.Name).Error()
	}
	return out.Denied, out.Reason
}

func (h *workflowHost) filter(a agentRef, target string, conv []helikon.Item) []helikon.Item {
	return h.w.reg.filter(a, target, conv)
}

func (h *workflowHost) finish(a agentRef, output string, handedOff bool) []helikon.Event {
	var out finishOut
	if err := workflow.ExecuteLocalActivity(h.local(), activityFinish, finishIn{stepIn: h.in(a), Output: output, HandedOff: handedOff}).Get(h.ctx, &out); err != nil {
		return []helikon.Event{helikon.RunFailed{Err: stepError(err, a.Name)}}
	}
	return out.Failure
}

// stepError turns a failed activity into the run's error: a cancelled
// workflow is a cancelled run, a bad seed a configuration failure.
func stepError(err error, agent string) *helikon.AgentError {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return &helikon.AgentError{Kind: helikon.KindCancelled, Agent: agent, Message: "the run was cancelled", Err: err}
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		kind := helikon.KindOther
		switch app.Type() {
		case "bad_seed", "config":
			kind = helikon.KindConfig
		}
		return &helikon.AgentError{Kind: kind, Agent: agent, Message: app.Message(), Err: err}
	}
	return &helikon.AgentError{Kind: helikon.KindOther, Agent: agent, Message: err.Error(), Err: err}
}
