package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	// DecideUpdate is the update that carries a human's decisions to a
	// paused run; it returns the offset of the events that follow.
	DecideUpdate = "helikon.decide"
	// PauseQuery is the query that returns the pause a run waits on, if
	// any, and how often it paused.
	PauseQuery = "helikon.pause"
	// WaitUpdate is the update that completes when the run pauses for
	// approval (on a pause other than the one it names) or ends: a client
	// that waits for a run's outcome learns of its pause without polling.
	WaitUpdate = "helikon.wait"
)

// stepTimeouts are the activity timeouts of a worker's steps.
type stepTimeouts struct {
	model, tool, other time.Duration
	heartbeat          time.Duration
	retryInterval      time.Duration
	// toolAttempts caps the attempts of named tools (0: Temporal's
	// default, unlimited).
	toolAttempts map[string]int32
	// local runs model turns and tool calls as local activities (see
	// [WithLocalActivities]); localModel runs model turns only as local
	// activities (see [WithLocalModelCalls]).
	local, localModel bool
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
	h := &workflowHost{ctx: ctx, w: w, seed: in.Seed, top: in.Agent, approvalTimeout: in.ApprovalTimeout}
	top := agentRef{Name: in.Agent}
	if in.Sub != nil {
		top = agentRef{Name: in.Agent, Depth: in.Sub.Depth, Parent: in.Sub.Parent, Tool: in.Sub.Tool}
		h.sub, h.allow = true, in.Sub.Allow
	}
	if err := workflow.SetQueryHandler(ctx, EventsQuery, h.page); err != nil {
		return runOutput{}, err
	}
	if err := workflow.SetQueryHandler(ctx, PauseQuery, h.pause); err != nil {
		return runOutput{}, err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, DecideUpdate, h.decide, workflow.UpdateHandlerOptions{Validator: h.validateDecisions}); err != nil {
		return runOutput{}, err
	}
	if err := workflow.SetUpdateHandler(ctx, WaitUpdate, h.wait); err != nil {
		return runOutput{}, err
	}
	var res helikon.HandoffReturned
	if err := h.loadShape(top); err != nil {
		ae := &helikon.AgentError{Kind: helikon.KindConfig, Agent: in.Agent, Message: err.Error(), Err: err}
		h.emit(helikon.RunFailed{Err: ae})
		res.Err = ae
	} else {
		res, _ = runLoop(h, top, in.Input, false)
	}
	// The waits under way complete with the run's end, before the
	// workflow does.
	h.ended = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return runOutput{}, err
	}
	out := runOutput{Output: res.Output, LastAgent: h.lastAgent, Usage: res.Usage, Events: len(h.events), Log: h.smallLog()}
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
	top       string
	// allow are the rules "always" decisions granted the run.
	allow []string
	// sub is set in the child workflow of an agent tool's sub-run.
	sub bool
	// children counts the child workflows started per call id, so a call
	// id a model reuses still gets a fresh child id.
	children map[string]int
	// inflight are the agent tools' child workflows under way, by id.
	inflight map[string]*childCall

	// The pause under way: its id, the calls it waits on, and the
	// decisions once the decide update brought them.
	approvalTimeout time.Duration
	pauses          int
	pauseID         string
	pending         []helikon.PendingApproval
	decided         []helikon.Decision
	// ended is set once the run's loop returned.
	ended bool

	// shape is what the run recorded at its start (nil for a run recorded
	// before shapes were, which reads the worker's configuration).
	shape *runShape
	// unrecorded is set after a model turn that ran as a local activity,
	// in the mode where tool calls are activities, until the workflow
	// task that holds it completes (see short).
	unrecorded bool
}

// loadShape records the run's shape at its start, or reads it back on a
// replay, and checks that this worker can run its step mode.
func (h *workflowHost) loadShape(top agentRef) error {
	if workflow.GetVersion(h.ctx, shapeChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	var s runShape
	if err := workflow.SideEffect(h.ctx, func(workflow.Context) any { return h.w.reg.shape(top, h.w.timeouts) }).Get(&s); err != nil {
		return fmt.Errorf("temporal: read the run's recorded shape: %w", err)
	}
	if err := checkMode(s.Mode, h.w.timeouts.mode()); err != nil {
		return err
	}
	h.shape = &s
	return nil
}

// mode is the run's step mode: the recorded one, or the worker's for a
// run recorded before modes were.
func (h *workflowHost) mode() stepMode {
	if h.shape != nil {
		return h.shape.Mode
	}
	return h.w.timeouts.mode()
}

// attempts is the attempt cap of tool's calls (0: none).
func (h *workflowHost) attempts(tool string) int32 {
	if h.shape != nil {
		return h.shape.Attempts[tool]
	}
	return h.w.timeouts.toolAttempts[tool]
}

// short runs one of the short steps around the loop (StartRun, Hook,
// FinishRun): a local activity, or an activity when it follows a model
// turn that ran as a local activity and is not recorded yet. A local
// activity is recorded only when its workflow task completes, and local
// steps that follow one another run in one task, so without it a crash
// during the handoff hook, a repair turn or the finishing step would
// repeat the finished turn; scheduling an activity completes the task,
// which records the turn first. (A 1 ms timer would too, but the dev
// server fired it about a second late.)
func (h *workflowHost) short(name string, in any) workflow.Future {
	if !h.unrecorded {
		return workflow.ExecuteLocalActivity(h.local(), name, in)
	}
	h.unrecorded = false
	ctx := workflow.WithActivityOptions(h.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: h.w.timeouts.other,
		HeartbeatTimeout:    h.w.timeouts.heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: h.w.timeouts.retryInterval},
	})
	return workflow.ExecuteActivity(ctx, name, in)
}

// await emits the run's pause and waits, holding no worker slot, until
// the decide update brings decisions or the approval timeout rejects every
// pending call.
func (h *workflowHost) await(_ agentRef, pending []helikon.PendingApproval, usage helikon.Usage) []helikon.Decision {
	if h.sub {
		return h.awaitParent(pending, usage)
	}
	// The wait below ends the workflow task.
	h.unrecorded = false
	h.pauses++
	h.pauseID = fmt.Sprintf("%s/pause-%d", workflow.GetInfo(h.ctx).WorkflowExecution.ID, h.pauses)
	h.pending, h.decided = pending, nil
	defer func() { h.pending, h.pauseID = nil, "" }()
	h.emit(helikon.RunPaused{Agent: h.top, Usage: usage, State: &helikon.RunState{
		Version: helikon.RunStateVersion, RunID: workflow.GetInfo(h.ctx).WorkflowExecution.ID, PauseID: h.pauseID,
		Agent: h.top, Pending: pending, Usage: usage, Allow: h.allow,
	}})
	decided := func() bool { return h.decided != nil }
	reason := ""
	if h.approvalTimeout > 0 {
		ok, err := workflow.AwaitWithTimeout(h.ctx, h.approvalTimeout, decided)
		switch {
		case err != nil:
			reason = "the run was cancelled while waiting for approval"
		case !ok:
			reason = "no decision within " + h.approvalTimeout.String()
		}
	} else if err := workflow.Await(h.ctx, decided); err != nil {
		reason = "the run was cancelled while waiting for approval"
	}
	if reason != "" {
		out := make([]helikon.Decision, len(pending))
		for i, p := range pending {
			out[i] = helikon.Reject(p.ID, reason)
		}
		return out
	}
	if grants, err := helikon.CheckDecisions(nil, pending, h.decided); err == nil {
		for _, g := range grants {
			h.allow = append(h.allow, g)
		}
	}
	return h.decided
}

// validateDecisions admits the decide update only for the pause under
// way and only with decisions [helikon.Resume] would accept; a rejected
// update leaves no trace in the history.
func (h *workflowHost) validateDecisions(_ workflow.Context, in decideIn) error {
	if h.pending == nil || h.decided != nil {
		return errors.New("temporal: the run is not waiting for decisions")
	}
	if in.PauseID != h.pauseID {
		return fmt.Errorf("temporal: pause %q is not the one under way (%q)", in.PauseID, h.pauseID)
	}
	_, err := helikon.CheckDecisions(nil, h.pending, in.Decisions)
	return err
}

// decide records the decisions and returns the offset of the events that
// follow them.
func (h *workflowHost) decide(ctx workflow.Context, in decideIn) (int, error) {
	if err := h.validateDecisions(ctx, in); err != nil {
		return 0, err
	}
	h.decided = append([]helikon.Decision{}, in.Decisions...)
	return len(h.events), nil
}

// wait answers the wait update once the run waits on a pause other than
// in.After, or has ended (an empty pause id).
func (h *workflowHost) wait(ctx workflow.Context, in waitIn) (pauseInfo, error) {
	if err := workflow.Await(ctx, func() bool {
		return h.ended || (h.pending != nil && h.decided == nil && h.pauseID != in.After)
	}); err != nil {
		return pauseInfo{}, err
	}
	return h.pause()
}

// pause answers the pause query.
func (h *workflowHost) pause() (pauseInfo, error) {
	p := pauseInfo{Pauses: h.pauses}
	if h.pending != nil && h.decided == nil {
		p.PauseID, p.Pending = h.pauseID, h.pending
	}
	return p, nil
}

func (h *workflowHost) page(from int) (rawPage, error) {
	if from < 0 || from > len(h.events) {
		return rawPage{}, errors.New("temporal: events offset out of range")
	}
	return rawPage{Events: h.events[from:], Next: len(h.events)}, nil
}

func (h *workflowHost) emit(ev helikon.Event) {
	// The workflow's clock, which replays the same: the loop's own events
	// get the time the workflow emits them; tool results and model
	// responses carry the times the activities measured.
	ev = helikon.StampEvent(ev, workflow.Now(h.ctx).UTC())
	if m, ok := ev.(helikon.MessageOutput); ok {
		h.lastAgent = m.Item.Agent
	}
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(helikon.RunFailed{Err: &helikon.AgentError{Kind: helikon.KindOther, Message: "event does not encode: " + err.Error()}})
	}
	h.events = append(h.events, b)
}

// smallLog returns the run's events when they encode in at most
// maxResultLog bytes, else nil.
func (h *workflowHost) smallLog() []json.RawMessage {
	size := 0
	for _, ev := range h.events {
		size += len(ev)
	}
	if size > maxResultLog {
		return nil
	}
	return h.events
}

func (h *workflowHost) in(a agentRef) stepIn { return stepIn{Agent: a, Seed: h.seed, Allow: h.allow} }

// step schedules a model turn or a tool call: an activity, or a local
// activity on a worker that runs them locally.
func (h *workflowHost) step(local bool, timeout time.Duration, attempts int32, name string, in any) workflow.Future {
	retry := &temporal.RetryPolicy{InitialInterval: h.w.timeouts.retryInterval, MaximumAttempts: attempts}
	if local {
		ctx := workflow.WithLocalActivityOptions(h.ctx, workflow.LocalActivityOptions{StartToCloseTimeout: timeout, RetryPolicy: retry})
		return workflow.ExecuteLocalActivity(ctx, name, in)
	}
	ctx := workflow.WithActivityOptions(h.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    h.w.timeouts.heartbeat,
		RetryPolicy:         retry,
	})
	return workflow.ExecuteActivity(ctx, name, in)
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

// plan returns a's transition context and tool-call bound: from the run's
// recorded shape, or from the worker for a run recorded before shapes
// were.
func (h *workflowHost) plan(a agentRef) (helikon.TransitionCtx, int, error) {
	if h.shape == nil {
		return h.w.reg.plan(a)
	}
	s, ok := h.shape.Agents[a.Name]
	if !ok {
		return helikon.TransitionCtx{}, 0, fmt.Errorf("%w: %q", ErrUnknownAgent, a.Name)
	}
	tc, err := h.w.reg.transitionCtx(a, s)
	return tc, s.Parallel, err
}

func (h *workflowHost) start(a agentRef, input []helikon.Item) ([]helikon.Item, []string, []helikon.Event) {
	var out startOut
	err := h.short(activityStartRun, startIn{stepIn: h.in(a), Input: input}).Get(h.ctx, &out)
	if err != nil {
		return nil, nil, []helikon.Event{helikon.RunFailed{Err: stepError(err, a.Name)}}
	}
	return out.System, out.Inject, out.Failure
}

func (h *workflowHost) callModel(a agentRef, turn int, req *helikon.ModelRequest, inject []string) helikon.TransitionInput {
	mode := h.mode()
	// A turn that follows an unrecorded one (a repair turn) runs as an
	// activity, which records the one before (see short).
	local := mode == modeLocal || (mode == modeLocalModel && !h.unrecorded)
	h.unrecorded = false
	var out modelOut
	err := h.step(local, h.w.timeouts.model, 0, activityCallModel, modelIn{stepIn: h.in(a), Turn: turn, Request: req, Inject: inject}).Get(h.ctx, &out)
	if err != nil {
		return helikon.Abort{Err: stepError(err, a.Name)}
	}
	h.unrecorded = local && h.shape != nil && mode == modeLocalModel
	return out.input()
}

// runTools runs the calls as concurrent activities, at most parallel at a
// time, each starting as soon as a slot frees. An agent tool's call whose
// sub-run the worker runs as a child workflow takes three steps, all
// recorded: its tool activity authorises it, the child workflow runs the
// sub-agent, and a local activity settles the call with the child's
// outcome; a crash repeats none of the child's recorded steps.
func (h *workflowHost) runTools(a agentRef, work []toolWork, parallel int) []toolDone {
	out := make([]toolDone, len(work))
	var run []int    // the calls that need a step
	var resume []int // the calls whose paused sub-run got decisions
	for i, w := range work {
		if st, ok := w.local(); ok {
			out[i] = st
			continue
		}
		if w.Child != nil {
			resume = append(resume, i)
			continue
		}
		run = append(run, i)
	}
	if len(run)+len(resume) == 0 {
		return out
	}
	if parallel <= 0 || parallel > len(run) {
		parallel = len(run)
	}
	sel := workflow.NewSelector(h.ctx)
	// A sub-run that pauses tells this run by a signal: its call is then
	// pending on the sub-run's approvals.
	sel.AddReceive(workflow.GetSignalChannel(h.ctx, subPausedSignal), func(c workflow.ReceiveChannel, _ bool) {
		var p subPause
		c.Receive(h.ctx, &p)
		h.childPaused(a, p)
	})
	next, running := 0, 0
	var launch func()
	// done settles call i and starts the next call in its slot.
	done := func(i int, st toolDone) {
		out[i] = st
		running--
		if next < len(run) {
			launch()
		}
	}
	for _, i := range resume {
		h.unrecorded = false // the selector's wait for the child ends the task
		running++
		h.resumeChild(sel, work[i].Child, func(st toolDone) { done(i, st) })
	}
	launch = func() {
		i := run[next]
		next++
		running++
		w := work[i]
		c := w.Call
		in := toolIn{stepIn: h.in(a), Call: c, Pending: w.Pending, Args: w.Args, Decision: w.Decision}
		// A local activity's attempts are counted in the worker's memory
		// until its task completes, so a crash would reset a cap: a capped
		// tool runs as an activity, whose attempts the server counts.
		attempts := h.attempts(c.Name)
		local := h.mode() == modeLocal && (h.shape == nil || attempts == 0)
		if !local {
			h.unrecorded = false // the selector's wait ends the task
		}
		f := h.step(local, h.w.timeouts.tool, attempts, activityTool, in)
		sel.AddFuture(f, func(f workflow.Future) {
			var r toolOut
			if err := f.Get(h.ctx, &r); err != nil {
				// A call whose every attempt failed (its worker crashed
				// and it allows no retry, or it timed out) reports that
				// to the model, as a tool's own failure would.
				r = toolOut{Result: failedCall(c, stepError(err, a.Name))}
			}
			if r.SubRun == nil {
				done(i, toolDone{ToolStep: r.step()})
				return
			}
			h.subRun(sel, a, c, r, func(st toolDone) { done(i, st) })
		})
	}
	for range parallel {
		if next < len(run) {
			launch()
		}
	}
	for running > 0 {
		sel.Select(h.ctx)
	}
	return out
}

func (h *workflowHost) hook(a agentRef, ev *helikon.HookEvent) (bool, string) {
	var out hookOut
	if err := h.short(activityHook, hookIn{stepIn: h.in(a), Event: *ev}).Get(h.ctx, &out); err != nil {
		return true, "hook step failed: " + stepError(err, a.Name).Error()
	}
	return out.Denied, out.Reason
}

// filter applies the handoff's input filter. A run with a recorded shape
// records the filter's outcome, so a worker whose filter changed replays
// the transcript the target got.
func (h *workflowHost) filter(a agentRef, target string, conv []helikon.Item) []helikon.Item {
	if h.shape == nil {
		return h.w.reg.filter(a, target, conv)
	}
	if !slices.Contains(h.shape.Agents[a.Name].Filtered, target) {
		return conv
	}
	var out []helikon.Item
	if err := workflow.SideEffect(h.ctx, func(workflow.Context) any { return h.w.reg.filter(a, target, conv) }).Get(&out); err != nil {
		return conv
	}
	return out
}

func (h *workflowHost) finish(a agentRef, output string, handedOff bool) []helikon.Event {
	var out finishOut
	if err := h.short(activityFinish, finishIn{stepIn: h.in(a), Output: output, HandedOff: handedOff}).Get(h.ctx, &out); err != nil {
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
