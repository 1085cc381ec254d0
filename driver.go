package helikon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/paigasus/helikon/internal/callround"
)

// Run streams one run of the agent over input. See [Agent].
func (a *LLMAgent) Run(ctx context.Context, rc *RunContext, input []Item) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		// The closure does not assign rc: a captured variable it assigned
		// would cost the stream its own allocation.
		d := a.newDriver(orEphemeral(rc))
		d.start(ctx, nil, input, yield)
	}
}

// Resume continues a run from a [Checkpoint] taken at a transition boundary
// (see [RunConfig].OnCheckpoint). The resumed stream carries the events after
// the boundary: it has no RunStarted, and input guardrails and the OnRunStart
// hook do not fire again.
func (a *LLMAgent) Resume(ctx context.Context, rc *RunContext, cp *Checkpoint) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		d := a.newDriver(orEphemeral(rc))
		d.resume(ctx, cp, yield)
	}
}

func orEphemeral(rc *RunContext) *RunContext {
	if rc == nil {
		return Ephemeral()
	}
	return rc
}

// driver runs the side effects between transitions for one run.
type driver struct {
	a   *LLMAgent
	rc  *RunContext
	cfg RunConfig
	tc  TransitionCtx
	// handedOff is set once a handoff target (lastAgent) ended the run.
	handedOff      bool
	lastAgent      string
	lastStructured bool
	// depthLimit bounds this run's nesting depth and that of its handoffs.
	depthLimit int
	input      *inputCheck // beside the first model call, until it settles

	mu         sync.Mutex // guards injections while tools run concurrently
	injections []string

	// paused holds what a pause freezes beyond the loop state (pause.go).
	paused pausedRound

	obs observer
	// cancel stops everything the run runs when its consumer goes, for a
	// run whose context can be cancelled (see stopper), and runDone is that
	// context's Done channel.
	cancel  context.CancelFunc
	runDone <-chan struct{}
	// rounds runs the run's inline tool rounds (toolRound).
	rounds callround.Spreader
	// live is the run's live round, reused from round to round and then
	// by later runs (liveRounds), and liveSpread the timer that spreads it
	// once the driver sleeps (see executeToolsLive).
	live       *liveRound
	liveSpread *time.Timer
	// queue carries the model's stream when it runs on a worker.
	queue *modelQueue
	// turn accumulates the current model turn's stream; yielding is set
	// while the consumer takes one of its events.
	turn     turnState
	yielding bool

	// toolIndex is the agent's tools by name as of the last model call.
	toolIndex map[string]Tool
	// fold, when the run's parent folds its lifecycle (RunContext.FoldInto),
	// takes the run's RunCompleted in place of the stream.
	fold *ChildOutcome
}

func (a *LLMAgent) newDriver(rc *RunContext) *driver {
	cfg := a.effectiveConfig(rc)
	_, model := DescribeModel(a.model)
	d := &driver{a: a, rc: rc, cfg: cfg, depthLimit: rc.depthLimit(cfg.MaxAgentDepth), toolIndex: a.toolIndex, tc: TransitionCtx{
		Agent:    a.name,
		Model:    model,
		Tools:    a.toolDefs,
		Settings: a.settings,
		MaxTurns: cfg.MaxTurns,
		Output:   a.output,
		Handoffs: a.handoffNames,
	}}
	if rc.fold != nil && rc.foldAgent == Agent(a) {
		d.fold, d.tc.folded = rc.fold, true
	}
	return d
}

func (d *driver) start(ctx context.Context, history, input []Item, yield func(Event) bool) {
	ctx, cancel := d.runContext(ctx)
	defer cancel()
	ctx, yield = d.observe(ctx, yield)
	defer d.endObserve()
	// What runs before the first turn is out of line, so that its frame
	// is gone while the run goes on.
	if !d.open(ctx, history, input, yield) {
		return
	}
	if d.input != nil {
		defer d.input.stop(d)
	}
	d.loop(ctx, nil, Start{}, NextAction{}, yield)
	d.releaseRounds()
}

// open runs the checks before the first turn and takes history followed by
// input as the conversation; false means the run ended with the failure it
// yielded.
func (d *driver) open(ctx context.Context, history, input []Item, yield func(Event) bool) bool {
	if d.rc.depth > d.depthLimit {
		yield(RunFailed{At: now(), Err: agentErrorf(KindMaxAgentDepthExceeded, d.a.name, "depth %d exceeds %d", d.rc.depth, d.depthLimit)})
		return false
	}
	if err := d.renderSystem(ctx); err != nil {
		yield(RunFailed{At: now(), Err: err})
		return false
	}
	d.tc.setConversation(history, input, firstRoom)
	if history != nil {
		// The recall and the guardrails read the conversation a run over
		// history and input as one slice would have been given.
		input = d.tc.conversationView()
	}

	if err := d.rc.settings().optErr; err != nil {
		yield(RunFailed{At: now(), Err: &AgentError{Kind: KindConfig, Agent: d.a.name, Message: err.Error(), Err: err}})
		return false
	}
	d.rc.recall(ctx, input, d.a.tools)
	if len(d.a.inputGuards) > 0 {
		if d.a.blockingInput {
			if !d.checkInput(ctx, input, yield) {
				return false
			}
		} else {
			d.input = d.startInputCheck(ctx, input)
		}
	}
	if hooked(d.rc, d.a.hooks) {
		f := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnRunStart, Agent: d.a.name})
		if f.denied {
			if d.input != nil {
				d.input.stop(d)
				d.input = nil
			}
			yield(RunFailed{At: now(), Err: &AgentError{Kind: KindHook, Agent: d.a.name, Message: f.reason}})
			return false
		}
		d.injections = f.inject
	}
	return true
}

func (d *driver) resume(ctx context.Context, cp *Checkpoint, yield func(Event) bool) {
	ctx, cancel := d.runContext(ctx)
	defer cancel()
	ctx, yield = d.observe(ctx, yield)
	defer d.endObserve()
	if cp == nil || cp.State == nil {
		yield(RunFailed{At: now(), Err: agentErrorf(KindOther, d.a.name, "resume: empty checkpoint")})
		return
	}
	d.obs.spent = progressOf(cp.State).Usage
	if d.paused.ds != nil {
		// A pause's frame holds the run's spend with its sub-runs'.
		d.obs.spent = d.paused.reported
	}
	if err := d.renderSystem(ctx); err != nil {
		yield(RunFailed{At: now(), Err: err})
		return
	}
	d.tc.setConversation(cp.Conversation, nil, firstRoom)
	d.rc.recall(ctx, cp.Conversation, d.a.tools)
	d.injections = cp.Injections
	if _, ok := cp.State.(NeedsApproval); ok && d.paused.memo != nil {
		// A pause resumed with decisions: the round runs again.
		d.loop(ctx, cp.State, ApprovalsResolved{}, NextAction{}, yield)
	} else {
		d.loop(ctx, cp.State, nil, ActionFor(cp.State, &d.tc, nil), yield)
	}
	d.releaseRounds()
}

// runContext returns the context of the run's steps: with the run's
// timeout, and, when it can be cancelled, with one cancel func for all of
// them (d.cancel), which stops the run's model stream and tool calls when
// the consumer goes. The caller releases it with the returned func.
func (d *driver) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d.cfg.Timeout > 0 {
		ctx, d.cancel = context.WithTimeout(ctx, d.cfg.Timeout)
	} else if ctx.Done() != nil {
		ctx, d.cancel = context.WithCancel(ctx)
	} else {
		return ctx, func() {}
	}
	d.runDone = ctx.Done()
	return ctx, d.cancel
}

func (d *driver) renderSystem(ctx context.Context) error {
	if d.a.staticSystem != nil || d.a.instructions == nil {
		d.tc.System = d.a.staticSystem
		return nil
	}
	text, err := d.a.instructions.Render(ctx, d.rc)
	if err != nil {
		return &AgentError{Kind: KindConfig, Agent: d.a.name, Message: "render instructions", Err: err}
	}
	if text != "" {
		d.tc.System = []Item{SystemItem(text)}
	}
	return nil
}

// loop alternates transitions and actions. With a non-nil in it starts with
// a transition; otherwise it starts by executing act for state.
func (d *driver) loop(ctx context.Context, state LoopState, in TransitionInput, act NextAction, yield func(Event) bool) {
	for {
		if in != nil {
			d.tc.Now = now()
			out := Transition(state, in, &d.tc)
			d.tc.extendConversation(out.Appends)
			for _, ev := range out.Events {
				if !yield(ev) {
					return
				}
			}
			state, act = out.Next, out.Action
			if d.cfg.OnCheckpoint != nil && act.Kind != ActTerminate && act.Kind != ActPause {
				cp := &Checkpoint{Agent: d.a.name, State: state, Conversation: d.tc.conversationView(), Injections: d.injections}
				if err := d.cfg.OnCheckpoint(ctx, cp); err != nil {
					yield(RunFailed{At: now(), Err: &AgentError{Kind: KindOther, Agent: d.a.name, Message: "checkpoint: " + err.Error(), Err: err}})
					return
				}
			}
		}
		switch act.Kind {
		case ActTerminate:
			d.finish(ctx, state, yield)
			return
		case ActPause:
			d.pause(state, yield)
			return
		}
		if err := ctx.Err(); err != nil {
			in = Abort{Err: cancelled(d.a.name, err)}
			continue
		}
		var ok bool
		if act.Kind == ActCallModel && len(d.a.sources) > 0 {
			d.refreshTools(ctx, act.Request)
		}
		switch act.Kind {
		case ActCallModel:
			if d.input != nil {
				in, ok = d.callModelGuarded(ctx, state, act.Request, yield)
			} else {
				in, ok = d.callModel(ctx, state, act.Request, d.obs.raw)
			}
		case ActExecuteTools:
			in, ok = d.executeTools(ctx, act.Calls, yield)
		case ActHandoff:
			in, ok = d.handoff(ctx, act.Target, d.obs.raw)
		}
		if !ok {
			return
		}
	}
}

func (d *driver) finish(ctx context.Context, state LoopState, yield func(Event) bool) {
	switch s := state.(type) {
	case Done:
		if !d.handedOff && len(d.a.outputGuards) > 0 {
			if !d.checkOutput(ctx, s.Output, yield) {
				return
			}
		}
		if hooked(d.rc, d.a.hooks) {
			fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnRunComplete, Agent: d.a.name})
		}
		done := RunCompleted{Agent: d.a.name, Usage: s.Usage, Structured: d.a.output != nil}
		if d.handedOff {
			done.Agent, done.Structured = d.lastAgent, d.lastStructured
		}
		if d.fold != nil {
			// What the observe yield does with a RunCompleted, and the
			// parent's See, without boxing the event for either, nor
			// reading the clock for a time no one sees.
			done.Usage = d.settleUsage()
			endTrace(d.obs.trace, done.Usage, nil)
			d.fold.completed(done)
			return
		}
		done.At = now()
		yield(done)
	case Failed:
		yield(RunFailed{At: now(), Err: s.Err})
	default:
		yield(RunFailed{At: now(), Err: agentErrorf(KindOther, d.a.name, "run stopped in non-terminal state %T", state)})
	}
}

// invokeModel runs one model turn, streaming raw deltas as they arrive;
// ok is false when the consumer stopped.
func (d *driver) invokeModel(ctx context.Context, state LoopState, req *ModelRequest, yield func(Event) bool) (in TransitionInput, ok bool) {
	if hooked(d.rc, d.a.hooks) {
		if abort := d.turnStarts(ctx, progressOf(state).Turn); abort != nil {
			return abort, true
		}
	}
	injected := d.injections
	if len(d.injections) > 0 {
		for _, msg := range d.injections {
			req.Messages = append(req.Messages, SystemItem(msg))
		}
		d.injections = nil
	}
	if d.rc.settings().callObserver != nil {
		d.observeCall(ctx, state, req, injected)
	}

	// The accumulators live in the driver: the loop's body is a closure,
	// and locals it captured would each cost the turn an allocation.
	a := &d.turn
	a.reset()
	a.left = d.cfg.MaxTurnBytes
	// A model read on this goroutine that panics fails the turn, as one
	// read on a worker does; a panic of the consumer's, raised while it
	// takes an event, is its own and goes on to it untouched.
	defer func() {
		if d.yielding {
			return
		}
		if r := recover(); r != nil {
			me := d.modelPanicked(r)
			in, ok = Abort{Err: &AgentError{Kind: KindModel, Agent: d.a.name, Err: me, Message: me.Error()}}, true
		}
	}()
	for ev, err := range d.modelStream(ctx, req) {
		if err != nil {
			if ctx.Err() != nil {
				return Abort{Err: cancelled(d.a.name, ctx.Err())}, true
			}
			return Abort{Err: &AgentError{Kind: KindModel, Agent: d.a.name, Err: err, Message: err.Error()}}, true
		}
		// cost is what the delta costs the turn against MaxTurnBytes.
		cost := modelEventCost
		switch e := ev.(type) {
		case TokenDelta:
			a.text.WriteString(e.Text)
			cost += len(e.Text)
		case ReasoningDelta:
			if a.reasoning == nil {
				a.reasoning = new(ReasoningBuilder)
			}
			a.reasoning.Add(e)
			cost += len(e.Text) + len(e.Signature) + len(e.Data) + len(e.ID)
		case ToolCallDelta:
			cost += a.callDelta(e)
			if len(a.calls) > d.cfg.MaxToolCallsPerTurn {
				return Abort{Err: d.turnTooLarge(a)}, true
			}
		default:
			// The rest the consumer does not see: out of the loop's body,
			// which every delta runs.
			if err := d.noteResponse(a, ev); err != nil {
				return Abort{Err: err}, true
			}
			continue
		}
		if a.left -= cost; a.left < 0 {
			// Nothing past the bound goes out: the stream stops here.
			return Abort{Err: d.turnTooLarge(a)}, true
		}
		if a.resp.FirstTokenAt.IsZero() {
			a.resp.FirstTokenAt = now()
		}
		d.yielding = true
		more := yield(ev.(Event))
		d.yielding = false
		if !more {
			return nil, false
		}
	}
	if err := ctx.Err(); err != nil {
		return Abort{Err: cancelled(d.a.name, err)}, true
	}
	resp, text, calls := a.resp, &a.text, a.calls
	var reasoning []ReasoningPart
	if a.reasoning != nil {
		reasoning = a.reasoning.Parts()
	}
	msg := Item{Role: RoleAssistant, Agent: d.a.name}
	n := len(reasoning) + len(calls)
	if text.Len() > 0 {
		n++
	}
	if n > 0 {
		msg.Content = make([]ContentPart, 0, n)
	}
	for _, r := range reasoning {
		msg.Content = append(msg.Content, r)
	}
	if text.Len() > 0 {
		msg.Content = append(msg.Content, TextPart{Text: text.String()})
	}
	if len(calls) > 0 {
		resp.Calls = make([]ToolCall, len(calls))
		for i, c := range calls {
			args := c.args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			resp.Calls[i] = ToolCall{CallID: c.id, Name: c.name, Args: args}
			msg.Content = append(msg.Content, ToolUsePart{CallID: c.id, Name: c.name, Args: args})
		}
	}
	resp.Message = msg
	return resp, true
}

// turnStarts fires the OnTurnStart hooks; a denial is the turn's Abort.
func (d *driver) turnStarts(ctx context.Context, turn int) TransitionInput {
	f := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: OnTurnStart, Agent: d.a.name, Turn: turn})
	if f.denied {
		return Abort{Err: &AgentError{Kind: KindHook, Agent: d.a.name, Message: f.reason}}
	}
	d.injections = append(d.injections, f.inject...)
	return nil
}

// turnState accumulates a model turn's stream.
type turnState struct {
	text strings.Builder
	// reasoning, made at a turn's first reasoning delta, gathers them.
	reasoning *ReasoningBuilder
	calls     []pendingCall
	resp      ModelResponse
	// args holds the first argument deltas of the turn's calls side by
	// side: one buffer for the arguments of several calls, not one each.
	args []byte
	// left is what the rest of the turn's stream may cost the run, from
	// RunConfig.MaxTurnBytes down: its events (modelEventCost each) and
	// the text, reasoning, calls' names, IDs and arguments and the
	// response's details they carry.
	left int
}

func (t *turnState) reset() {
	t.text.Reset()
	if t.reasoning != nil {
		t.reasoning.Reset()
	}
	clear(t.calls)
	t.calls = t.calls[:0]
	t.resp = ModelResponse{}
	t.args = nil
}

// noteResponse notes in a what a model event other than a delta says of
// the response (its usage, finish reason, id and model); an event of a
// kind it does not know is dropped. Each costs the turn as a delta does.
func (d *driver) noteResponse(a *turnState, ev ModelEvent) *AgentError {
	cost := modelEventCost
	switch e := ev.(type) {
	case Usage:
		if !e.reported() {
			return d.usageRefused(e)
		}
		a.resp.Usage = a.resp.Usage.Add(e)
	case Finish:
		a.resp.Finish = e.Reason
		cost += len(e.Reason)
	case ResponseInfo:
		a.resp.ResponseID, a.resp.ResponseModel = e.ID, e.Model
		cost += len(e.ID) + len(e.Model)
	}
	if a.left -= cost; a.left < 0 {
		return d.turnTooLarge(a)
	}
	return nil
}

// usageRefused is the failure of a turn whose model reported usage u that
// no turn can have spent: a budget cannot decide on it, so the run fails
// rather than go on uncounted.
func (d *driver) usageRefused(u Usage) *AgentError {
	err := fmt.Errorf("%w: %+v", ErrInvalidUsage, u)
	return &AgentError{Kind: KindModel, Agent: d.a.name, Message: err.Error(), Err: err}
}

// turnTooLarge is the failure of a turn whose response went past one of
// RunConfig's bounds on a model response.
func (d *driver) turnTooLarge(t *turnState) *AgentError {
	var err error
	if len(t.calls) > d.cfg.MaxToolCallsPerTurn {
		err = fmt.Errorf("%w: more than %d tool calls (RunConfig.MaxToolCallsPerTurn)", ErrTurnTooLarge, d.cfg.MaxToolCallsPerTurn)
	} else {
		err = fmt.Errorf("%w: more than %d bytes of events, text, reasoning and tool calls (RunConfig.MaxTurnBytes)", ErrTurnTooLarge, d.cfg.MaxTurnBytes)
	}
	return &AgentError{Kind: KindModel, Agent: d.a.name, Message: err.Error(), Err: err}
}

// modelEventCost is what each event of a model response counts against
// RunConfig.MaxTurnBytes beyond the bytes it carries: a consumer that
// keeps a run's events pays at least this much for each (its interface
// value and its box), and a response of empty events must end too.
const modelEventCost = 32

// argsRoom is how many times its first delta's length the turn's argument
// buffer holds: room for the arguments of a few calls of the same shape.
const argsRoom = 4

// callDelta adds e to the turn's calls and returns the bytes the turn
// keeps of it: its name and arguments, and its call's ID once.
func (t *turnState) callDelta(e ToolCallDelta) int {
	for i := len(t.calls) - 1; i >= 0; i-- {
		if c := &t.calls[i]; c.id == e.CallID {
			if e.Name != "" {
				c.name = e.Name
			}
			// A call's arguments end where its first delta did, so this
			// append copies them out of the shared buffer.
			c.args = append(c.args, e.ArgsDelta...)
			return len(e.Name) + len(e.ArgsDelta)
		}
	}
	var args json.RawMessage
	if n := len(e.ArgsDelta); n > 0 {
		if cap(t.args)-len(t.args) < n {
			t.args = make([]byte, 0, argsRoom*n)
		}
		start := len(t.args)
		t.args = append(t.args, e.ArgsDelta...)
		args = t.args[start:len(t.args):len(t.args)]
	}
	t.calls = append(t.calls, pendingCall{id: e.CallID, name: e.Name, args: args})
	return len(e.CallID) + len(e.Name) + len(e.ArgsDelta)
}

type pendingCall struct {
	id, name string
	args     json.RawMessage
}

// callOutcome is one tool call's result and the governance events it made.
type callOutcome struct {
	result ToolResult
	events []Event
	// live, when set, takes the events as they happen instead of events.
	live chan<- Event
	// d is the driver running the call.
	d *driver
	// approval is the request put to a human, once one was; paused is set
	// when the call waits for a decision (see pause.go).
	approval *PendingApproval
	paused   *frameCall
	// deferred is set when the call is an agent tool's whose sub-run the
	// runner runs itself (see [Steps.DeferSubRuns]).
	deferred *SubRun
	// gone is closed when the driver gave up on the call (see liveRound).
	gone <-chan struct{}
	// tc is the tool's context, here to cost the call no allocation.
	tc ToolContext
	// late is set on a call of an inline round that ended after the
	// run's context did (see runInline); denied once governance refused
	// it (deny), which its span reports.
	late, denied bool
	// ended is set once the call returned; mu guards it and events.
	mu    sync.Mutex
	ended bool
}

// emit reports a governance event of the call. An event sent after the
// call returned (by a goroutine the tool left running on its ToolContext)
// is dropped: the round it belonged to has settled, and a run reuses its
// live round, so it would land in a later round's stream or block on a
// round nobody reads any more.
func (o *callOutcome) emit(ev Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	if o.live != nil {
		// The driver reads live until every call of the round ends (this
		// one cannot end while the lock is held), or until it gives up
		// on the calls still running.
		select {
		case o.live <- ev:
		case <-o.gone:
		}
		return
	}
	o.events = append(o.events, ev)
}

// end marks the call returned: later events are dropped (see emit).
func (o *callOutcome) end() {
	o.mu.Lock()
	o.ended = true
	o.mu.Unlock()
}

// Ask implements [Asker]: the run reports ApprovalRequested as the
// question goes to the approver, so a caller sees it while the approver
// decides rather than after.
func (o *callOutcome) Ask(ctx context.Context, req PermissionRequest, prompt, who string) Verdict {
	o.approvalRequested(req, prompt, who)
	return o.d.rc.askHandler(ctx, req, prompt, who)
}

func (o *callOutcome) approvalRequested(req PermissionRequest, prompt, who string) {
	args := o.d.rc.redact(ToolOutput{Content: req.Args}).Content
	o.approval = &PendingApproval{ID: newID("apr_"), Agent: o.d.a.name, CallID: req.CallID, Tool: req.Tool, Args: args, Prompt: prompt, AskedBy: who}
	o.emit(ApprovalRequested{At: now(), ID: o.approval.ID, Agent: o.d.a.name, CallID: req.CallID, Tool: req.Tool, Args: args, Prompt: prompt, AskedBy: who})
}

// executeTools runs the calls of one turn, concurrently when there are
// several (bounded by RunConfig.ParallelToolCalls), and returns their
// results in call order: on workers when the run can be cancelled
// (executeToolsLive), so a call ignoring its context holds the run at most
// RunConfig.CancelGrace, else on the driver's goroutine first (toolRound,
// inlineRound).
func (d *driver) executeTools(ctx context.Context, calls []ToolCall, yield func(Event) bool) (TransitionInput, bool) {
	if !d.inlineRound(ctx, calls) {
		return d.executeToolsLive(ctx, calls, yield)
	}
	outs := make([]callOutcome, len(calls))
	if len(calls) == 1 || d.cfg.ParallelToolCalls == 1 {
		for i := range calls {
			d.runInline(ctx, calls[i], &outs[i])
		}
	} else {
		r := &toolRound{d: d, ctx: ctx, calls: calls, outs: outs}
		r.Init(len(calls), d.cfg.ParallelToolCalls, r)
		d.rounds.Run(&r.Inline)
	}
	if ctx.Done() != nil && ctx.Err() != nil {
		d.warnBrokenPromises(outs)
	}
	for i := range outs {
		for _, ev := range outs[i].events {
			if !yield(ev) {
				return nil, false
			}
		}
	}
	return d.settle(calls, outs), true
}

// inlineRound reports whether the round of calls may run on the driver's
// goroutine. A round with an approval handler streams its events as they
// happen, so never; a run that cannot be cancelled, always; a cancellable
// one only when nothing in the round can block without watching its
// context: every tool of the round promises it ([CancelAwareTool]) and no
// hook, nor an authorizer or a redactor other than the default ones (user
// code, which may block; a Redactor is not even given the context), runs
// around the calls. An unknown tool's call only fails.
func (d *driver) inlineRound(ctx context.Context, calls []ToolCall) bool {
	if d.rc.settings().approval != nil {
		return false
	}
	if ctx.Done() == nil {
		return true
	}
	if d.userCodeAroundCalls() {
		return false
	}
	for i := range calls {
		if t, ok := d.toolIndex[calls[i].Name]; ok && !honoursCancellation(t) {
			return false
		}
	}
	return true
}

// userCodeAroundCalls reports whether code of the user's other than the
// tools takes part in a round's calls: a hook, or an authorizer or a
// redactor other than the default ones. Any of them may block without
// watching the run's context (a Redactor is not even given it). An
// approval handler is asked about apart: it also changes how the round
// streams its events.
func (d *driver) userCodeAroundCalls() bool {
	s := d.rc.settings()
	return hooked(d.rc, d.a.hooks) || (s.auth != nil && s.auth != defaultAuthorizer()) ||
		(s.redactor != nil && s.redactor != defaultRedactor())
}

func (d *driver) runUnlessCancelled(ctx context.Context, call ToolCall, out *callOutcome) {
	if err := ctx.Err(); err != nil {
		out.result = errorResult(call, "not run: "+err.Error())
		return
	}
	d.runCall(ctx, call, out)
}

// runInline is runUnlessCancelled for a call of an inline round: it also
// notes whether the call ended after the run was cancelled. One that ended
// before kept any promise to honour cancellation, however long it ran.
func (d *driver) runInline(ctx context.Context, call ToolCall, out *callOutcome) {
	d.runUnlessCancelled(ctx, call, out)
	out.late = ctx.Done() != nil && ctx.Err() != nil
}

// warnBrokenPromises logs the calls of an inline round of a cancelled run
// that ran longer than the grace period and ended after the cancellation:
// their tools promised to return promptly once cancelled
// ([CancelAwareTool]), and one that did not held the run past it.
func (d *driver) warnBrokenPromises(outs []callOutcome) {
	grace, bound := d.cfg.grace()
	if !bound {
		return
	}
	for i := range outs {
		r := &outs[i].result
		if ran := r.EndedAt.Sub(r.StartedAt); outs[i].late && ran > grace {
			slog.Warn("helikon: a tool that promises to honour cancellation ran past the cancel grace period of a cancelled run; if it ignored the cancellation, it held the run",
				"agent", d.a.name, "tool", r.Name, "ran", ran, "grace", grace)
		}
	}
}

// toolRound is a round of calls that run inline (see inlineRound), the
// driver's goroutine first and workers after callround.HandoffDelay, at
// most RunConfig.ParallelToolCalls at a time with the driver.
type toolRound struct {
	callround.Inline
	d     *driver
	ctx   context.Context
	calls []ToolCall
	outs  []callOutcome
}

// RunCall runs the round's call i.
func (r *toolRound) RunCall(i int) { r.d.runInline(r.ctx, r.calls[i], &r.outs[i]) }

// executeToolsLive runs the calls of a round on workers (liveRound) while
// the driver streams their governance events, so a caller sees
// ApprovalRequested while the approver decides. If the consumer stops, the
// calls are cancelled; once the run's context has ended, the driver waits
// at most the cancel grace period for them, then gives up on them
// (stragglers, their results dropped) and the run ends as cancelled.
func (d *driver) executeToolsLive(ctx context.Context, calls []ToolCall, yield func(Event) bool) (TransitionInput, bool) {
	ctx, cancel, owned := d.stopper(ctx)
	if owned {
		defer cancel()
	}
	r := d.liveRound(ctx, calls)
	if d.handsOnlyTools() {
		r.admitAll(ctx)
	}
	r.Submit()
	// Made while the calls run: the driver waits for them on a processor
	// of its own.
	*r.ahead = makeRoundAhead(len(calls))
	stopped := false
	forward := func(ev Event) {
		if !stopped && !yield(ev) {
			stopped = true
			cancel()
		}
	}
	if r.toolsOnly() {
		// What admitting the calls reported (a denial), in call order.
		for i := range r.outs {
			for _, ev := range r.outs[i].events {
				forward(ev)
			}
		}
	}
	// The round's start, taken by Await when it first looks at the clock.
	var start time.Time
	if !r.Await(ctx.Done(), &start, forward) {
		if start.IsZero() {
			start = time.Now()
		}
		// The driver sleeps until the round ends. The calls nobody has
		// started get workers of their own once the round is
		// callround.HandoffDelay old.
		var spread <-chan time.Time
		if len(calls) > 1 && d.cfg.ParallelToolCalls != 1 {
			if rest := callround.HandoffDelay - time.Since(start); rest <= 0 {
				r.Spread()
			} else {
				if d.liveSpread == nil {
					d.liveSpread = time.NewTimer(rest)
				} else {
					d.liveSpread.Reset(rest)
				}
				defer d.liveSpread.Stop()
				spread = d.liveSpread.C
			}
		}
		g := newGraceTimer(d.cfg)
		defer g.Stop()
		done := ctx.Done()
		events, over, sleeps := r.Sleep()
		for finished := !sleeps; !finished; {
			select {
			case ev := <-events:
				forward(ev)
			case <-over:
				finished = true
			case <-spread:
				spread = nil
				r.Spread()
			case <-done:
				done = nil
				g.Start()
			case <-g.Expired():
				if r.toolsOnly() {
					r.endAbandoned()
				}
				d.abandonCalls(r, calls)
				if stopped {
					return nil, false
				}
				return Abort{Err: cancelled(d.a.name, context.Cause(ctx))}, true
			}
		}
	}
	// Every worker has left the round, and the events of its calls came
	// before its state (or token) said so.
	if r.toolsOnly() {
		r.settleAll()
	}
	r.ctx, r.calls = nil, nil
	if stopped {
		return nil, false
	}
	return d.settleInto(calls, r.outs, r.ahead), true
}

// liveRound is a round of calls that run on workers while the driver
// streams their events (executeToolsLive, callround.Live), with the calls
// and outcomes it runs them on.
type liveRound struct {
	callround.Live[Event]
	d     *driver
	ctx   context.Context
	calls []ToolCall
	outs  []callOutcome
	// handed carries each call between the driver, which admits and
	// settles it, and the worker that runs its tool, in a round that
	// hands workers only the tools (toolsOnly, tool_handoff.go); it is
	// reused from round to round.
	handed []toolCall
	// ahead is what settling the round and the transition after it
	// allocate, made while its calls run (round_ahead.go). It lies apart
	// from the round: the driver writes it while a worker takes the
	// round's calls.
	ahead *roundAhead
}

// RunCall runs the round's call i.
func (r *liveRound) RunCall(i int) {
	if r.toolsOnly() {
		r.runTool(i)
		return
	}
	r.d.runUnlessCancelled(r.ctx, r.calls[i], &r.outs[i])
}

// liveRounds holds the live rounds of ended runs for later runs. A run
// keeps one for all its rounds, since every worker has left a round when
// it ends (see callround.Live), and for the same reason passes it on when
// it ends; one the run gave up on is not reused (abandonCalls).
var liveRounds sync.Pool

// liveRound readies the run's live round for calls under ctx.
func (d *driver) liveRound(ctx context.Context, calls []ToolCall) *liveRound {
	r := d.live
	if r == nil {
		r, _ = liveRounds.Get().(*liveRound)
		if r == nil {
			r = &liveRound{ahead: new(roundAhead)}
		}
		r.d = d
		d.live = r
	}
	// Each round has outcomes of its own: a call's ToolContext lives in
	// its outcome, and a tool may keep it past its call.
	r.ctx, r.calls, r.outs = ctx, calls, make([]callOutcome, len(calls))
	r.Start(len(calls), d.cfg.ParallelToolCalls, r)
	events, gone := r.Events(), r.Gone()
	for i := range r.outs {
		r.outs[i].live, r.outs[i].gone = events, gone
	}
	return r
}

// releaseRounds lets the run's inline rounds' timer stop and passes its
// live round on to later runs, once the run ended with every worker gone
// from it: not after a panic, which may leave the round under way.
func (d *driver) releaseRounds() {
	d.rounds.Release()
	if r := d.live; r != nil {
		d.live = nil
		r.d, r.outs, *r.ahead = nil, nil, roundAhead{}
		liveRounds.Put(r)
	}
}

// stopper returns the context a step of the run runs under and the cancel
// func that stops it when the consumer goes: the run's own when the step
// runs under the run's context (the same Done channel) and the run made it
// cancellable for all its steps (owned false); otherwise a fresh one, which
// the caller releases, since a step on a context of its own (the first
// model call under the input guardrails', a [Steps] step) must not stop
// the whole run.
func (d *driver) stopper(ctx context.Context) (_ context.Context, cancel context.CancelFunc, owned bool) {
	if d.cancel != nil && ctx.Done() == d.runDone {
		return ctx, d.cancel, false
	}
	ctx, cancel = context.WithCancel(ctx)
	return ctx, cancel, true
}

// deny refuses call for reason, redacted: the stream reports it, and the
// model sees it after prefix as the call's error.
func (o *callOutcome) deny(call ToolCall, prefix, reason string) {
	reason = o.d.rc.redactText(reason)
	o.denied = true
	o.emit(PermissionDenied{At: now(), CallID: call.CallID, Tool: call.Name, Reason: reason})
	o.result = errorResult(call, prefix+reason)
}

func errorResult(c ToolCall, msg string) ToolResult {
	return ToolResult{CallID: c.CallID, Name: c.Name, IsError: true, Content: []ContentPart{TextPart{Text: msg}}}
}

// runCall takes one call through the governance layers in order: PreToolUse
// hook › permission pipeline › tool › PostToolUse hook › redaction.
func (d *driver) runCall(ctx context.Context, call ToolCall, out *callOutcome) {
	out.d = d
	defer out.end()
	memo := d.paused.memo[call.CallID]
	if memo != nil && memo.Status == callDone {
		// Settled before the pause: its result stands, it does not run again.
		out.result = *memo.Result
		return
	}
	ctx, span := d.startTool(ctx, call)
	defer d.endTool(span, out)
	// Hooks, policies and approvers are user code too; on a worker
	// goroutine their panic would take the process down with no caller
	// able to recover it, so it fails the call instead, like a tool's.
	defer func() {
		if r := recover(); r != nil {
			d.callPanicked(call, out, r)
		}
	}()
	tool, ok := d.lookup(call, out)
	if !ok {
		return
	}
	if memo != nil {
		d.resumeCall(ctx, tool, call, memo, out)
		return
	}
	args, ok := d.admitted(ctx, tool, call, out)
	if !ok {
		return
	}
	d.invoke(ctx, tool, call, args, out)
}

// lookup returns call's tool, or false with out's result saying the
// agent has no such tool.
func (d *driver) lookup(call ToolCall, out *callOutcome) (Tool, bool) {
	tool, ok := d.toolIndex[call.Name]
	if !ok {
		out.result = errorResult(call, fmt.Sprintf("unknown tool %q", call.Name))
	}
	return tool, ok
}

// admitted returns the arguments call runs with, once the PreToolUse
// hooks and the permission pipeline, if any, admitted it; false means
// they did not (out says why).
func (d *driver) admitted(ctx context.Context, tool Tool, call ToolCall, out *callOutcome) (json.RawMessage, bool) {
	if !hooked(d.rc, d.a.hooks) && d.rc.settings().auth == nil {
		return call.Args, true
	}
	// Kept out of line: a call's frame stays small while the tool runs,
	// which keeps the stack of a run waiting on a tool small.
	return d.admit(ctx, tool, call, out)
}

// toolContext is the context call's tool is given, whose events go to
// out.
func (d *driver) toolContext(ctx context.Context, call ToolCall, out *callOutcome) ToolContext {
	return ToolContext{Context: ctx, rc: d.rc, CallID: call.CallID, ToolName: call.Name, Agent: d.a.name, depthLimit: d.depthLimit, call: out}
}

// callPanicked logs a panic of the code around a tool call (a hook, a
// policy, an approver) and fails the call with it.
func (d *driver) callPanicked(call ToolCall, out *callOutcome, r any) {
	p := d.rc.redactText(fmt.Sprint(r))
	slog.Error("helikon: panic while running a tool call", "tool", call.Name, "panic", p, "stack", string(debug.Stack()))
	out.result = errorResult(call, "tool call failed: panic: "+p)
}

// admit runs the PreToolUse hooks and the permission pipeline for call and
// returns the arguments it runs with, or ok false (out says why).
func (d *driver) admit(ctx context.Context, tool Tool, call ToolCall, out *callOutcome) (args json.RawMessage, ok bool) {
	args = call.Args
	if hooked(d.rc, d.a.hooks) {
		// Checked first: the event escapes to the hooks, and a call the
		// authorizer alone admits builds none.
		if args, ok = d.preToolUse(ctx, call, out); !ok {
			return nil, false
		}
	}
	auth := d.rc.authorize(ctx, PermissionRequest{Tool: call.Name, CallID: call.CallID, Args: args, Effect: EffectOf(tool), Impl: tool}, out)
	if auth.Args != nil {
		args = auth.Args
	}
	if auth.Deferred {
		out.paused = &frameCall{CallID: call.CallID, Name: call.Name, Status: callPending, Args: args, Approval: out.approval}
		return nil, false
	}
	if !auth.Allowed {
		out.deny(call, "permission denied: ", auth.Reason)
		return nil, false
	}
	return args, true
}

// preToolUse runs the PreToolUse hooks for call and returns the arguments
// they leave it, or ok false when one denied it.
func (d *driver) preToolUse(ctx context.Context, call ToolCall, out *callOutcome) (args json.RawMessage, ok bool) {
	pre := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: PreToolUse, Agent: d.a.name, Tool: call.Name, CallID: call.CallID, Args: call.Args})
	if pre.denied {
		out.deny(call, "denied: ", pre.reason)
		return nil, false
	}
	d.injectLater(pre.inject)
	if pre.input != nil {
		return pre.input, true
	}
	return call.Args, true
}

// invoke runs an authorised call: the tool › PostToolUse hook › redaction.
func (d *driver) invoke(ctx context.Context, tool Tool, call ToolCall, args json.RawMessage, out *callOutcome) {
	out.tc = d.toolContext(ctx, call, out)
	h := toolCall{tool: tool, args: args}
	h.call(&out.tc)
	d.settleTool(ctx, call, &h, out)
}

// settleCall turns a tool's answer into the call's outcome: a paused agent
// tool pauses the call, an error becomes an error result, an output passes
// the PostToolUse hook and redaction.
func (d *driver) settleCall(ctx context.Context, call ToolCall, args json.RawMessage, output ToolOutput, err error, out *callOutcome) {
	if sub := asSubRunPaused(err); sub != nil {
		out.paused = &frameCall{CallID: call.CallID, Name: call.Name, Status: callNested, Args: args, Sub: sub.frame}
		return
	}
	if run := asSubRunDeferred(err); run != nil {
		run.Args = args
		out.deferred = run
		return
	}
	if err != nil {
		te := asToolError(call.Name, err)
		out.result = errorResult(call, d.rc.redactText(te.Error()))
		out.result.InvalidArgs = te.Kind == ToolInvalidArgs
		return
	}
	if hooked(d.rc, d.a.hooks) {
		post := fireHooks(ctx, d.rc, d.a.hooks, &HookEvent{Kind: PostToolUse, Agent: d.a.name, Tool: call.Name, CallID: call.CallID, Args: args, Output: output})
		if post.denied {
			out.deny(call, "denied: ", post.reason)
			return
		}
		if post.output != nil {
			output = ToolOutput{Content: post.output}
		}
		d.injectLater(post.inject)
	}
	output = d.rc.redact(output)
	out.result = ToolResult{CallID: call.CallID, Name: call.Name, Content: output.parts()}
}

func (d *driver) injectLater(msgs []string) {
	if len(msgs) == 0 {
		return
	}
	d.mu.Lock()
	d.injections = append(d.injections, msgs...)
	d.mu.Unlock()
}

func safeCall(t Tool, tc *ToolContext, args json.RawMessage) (out ToolOutput, err error) {
	defer func() {
		if r := recover(); r != nil {
			p := tc.rc.redactText(fmt.Sprint(r))
			slog.Error("helikon: tool panicked", "tool", t.Name(), "panic", p, "stack", string(debug.Stack()))
			err = &ToolError{Kind: ToolFailed, Tool: t.Name(), Err: errors.New("tool panicked: " + p)}
		}
	}()
	return t.Call(tc, args)
}
