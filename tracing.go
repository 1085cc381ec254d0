package helikon

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/paigasus/helikon/internal/gentrace"
)

// TracerName is the instrumentation scope of the spans the core emits.
const TracerName = "github.com/paigasus/helikon"

// WithTracerProvider sets the OpenTelemetry tracer provider of the run's
// spans; handoffs and sub-agents share it. Without it runs use
// otel.GetTracerProvider(), which is a no-op until the program installs one.
//
// The spans (invoke_agent, agent.turn, chat, execute_tool: the tree is in
// docs/observability.md) carry the GenAI semantic-convention attributes
// (gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model,
// gen_ai.agent.name, gen_ai.usage.*, gen_ai.response.finish_reasons,
// gen_ai.tool.name, gen_ai.tool.call.id, error.type), the [TracerHandle]'s
// session.id, user.id and tags (as langfuse.trace.tags) on the agent and
// turn spans, and gen_ai.usage.cost when the run has a price table. Message
// content is never recorded. When the agent span is not recording (no
// provider installed, or the trace is not sampled) the run creates no
// further spans.
func WithTracerProvider(tp trace.TracerProvider) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().tp = tp })
}

// startAgentTrace opens the invoke_agent span of agent, a run under rc
// (model may be nil), and returns the context the agent's children run in;
// with no tracer provider installed, ctx and a nil trace, at no cost.
func startAgentTrace(ctx context.Context, rc *RunContext, agent, description string, model Model) (context.Context, *gentrace.Agent) {
	tracer := gentrace.Tracer(rc.settings().tp, TracerName)
	if tracer == nil {
		return ctx, nil
	}
	var describe func() (provider, id string)
	if model != nil {
		describe = func() (string, string) { return DescribeModel(model) }
	}
	return gentrace.StartAgent(ctx, tracer, agent, description, gentrace.Handle(rc.settings().tracer), describe)
}

// endTrace closes t's spans with the run's usage and failure; later calls
// do nothing.
func endTrace(t *gentrace.Agent, u Usage, err error) {
	if t == nil {
		return
	}
	var typ string
	if err != nil {
		typ = errorType(err)
	}
	t.End(spanUsage(u), typ, err)
}

func spanUsage(u Usage) gentrace.Usage {
	return gentrace.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CachedInputTokens,
		CacheWrite: u.CacheWriteTokens, Reasoning: u.ReasoningTokens, Cost: u.Cost}
}

// observer is a driver's telemetry and accounting: its spans, the usage it
// has spent, and the sink its sub-agents report into.
type observer struct {
	trace *gentrace.Agent
	// raw is the consumer's own yield, which the model's deltas and a
	// handoff's stream go straight to: too many to pay for a wrapper each.
	raw func(Event) bool
	// spent is what this run's own turns and handoffs used.
	spent Usage
	// sink gathers sub-agent usage; parent is where this run reports its
	// total, when it runs as a sub-agent.
	sink   usageSink
	parent *usageSink
	ctx    sinkContext
}

// observe opens the run's agent span and returns the run's context and
// the yield that closes the spans and stamps usage on the terminal event.
func (d *driver) observe(ctx context.Context, yield func(Event) bool) (context.Context, func(Event) bool) {
	o := &d.obs
	// Runs nested under this one (agents its tools start) find its sink in
	// their context, as the run it nests in found its own.
	o.parent, _ = ctx.Value(sinkKey{}).(*usageSink)
	o.ctx = sinkContext{Context: ctx, sink: &o.sink}
	ctx = &o.ctx
	if d.rc.settings().budget.set() && d.rc.settings().meter == nil {
		// The top-level run of a budget: its meter is shared by every run
		// nested in it through the RunContext.
		rc := *d.rc
		rc.setting().meter = &budgetMeter{limit: rc.settings().budget}
		d.rc = &rc
	}
	ctx, o.trace = startAgentTrace(ctx, d.rc, d.a.name, d.a.description, d.a.model)
	o.raw = yield
	return ctx, func(ev Event) bool {
		switch e := ev.(type) {
		case TurnStarted:
			o.trace.StartTurn(e.Turn)
		case RunCompleted:
			if u := d.settleUsage(); u != e.Usage {
				e.Usage = u
				ev = e
			}
			endTrace(o.trace, e.Usage, nil)
		case RunFailed:
			if u := d.settleUsage(); u != e.Usage {
				e.Usage = u
				ev = e
			}
			endTrace(o.trace, e.Usage, e.Err)
		case RunPaused:
			endTrace(o.trace, e.Usage, nil)
		}
		return yield(ev)
	}
}

// endObserve closes the spans of a run its consumer stopped early.
func (d *driver) endObserve() { endTrace(d.obs.trace, Usage{}, nil) }

// settleUsage returns the run's total usage and reports it to the run that
// started this one as a sub-agent.
func (d *driver) settleUsage() Usage {
	total := d.obs.spent.Add(d.obs.sink.sum())
	if d.obs.parent != nil {
		// A resumed run reported its spend up to the pause already.
		d.obs.parent.add(total.minus(d.paused.reported))
		d.obs.parent = nil
	}
	return total
}

// errorType is err's low-cardinality type, as spans record it.
func errorType(err error) string {
	var me *ModelError
	var ae *AgentError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return string(KindCancelled)
	case errors.As(err, &ae) && ae.Kind != KindModel:
		return string(ae.Kind)
	case errors.As(err, &me):
		return string(me.Kind)
	}
	return "other"
}

// handoffContext returns the context a handoff target runs in: under the
// current turn, and with no sink, since its usage returns through its
// RunCompleted.
func (d *driver) handoffContext(ctx context.Context) context.Context {
	return context.WithValue(d.obs.trace.InTurn(ctx), sinkKey{}, (*usageSink)(nil))
}

// callModel runs one model turn in its chat span, within the run's budget.
func (d *driver) callModel(ctx context.Context, state LoopState, req *ModelRequest, yield func(Event) bool) (TransitionInput, bool) {
	ctx, chat, abort := d.startChat(ctx, req)
	if abort != nil {
		return abort, true
	}
	in, ok := d.invokeModel(ctx, state, req, yield)
	return d.endChat(chat, in), ok
}

// startChat opens a model turn's chat span. A non-nil abort means the run's
// budget is already spent and the model must not be called.
func (d *driver) startChat(ctx context.Context, req *ModelRequest) (_ context.Context, span trace.Span, abort TransitionInput) {
	if m := d.rc.settings().meter; m != nil {
		if err := m.spent(d.a.name); err != nil {
			return ctx, nil, Abort{Err: err}
		}
	}
	if !d.obs.trace.Recording() {
		return ctx, nil, nil
	}
	provider, model := DescribeModel(d.a.model)
	s := &req.Settings
	ctx, span = d.obs.trace.StartChat(ctx, provider, model, s.Temperature, s.TopP, s.MaxOutputTokens)
	return ctx, span, nil
}

// endChat settles a model turn: it prices the usage, books it against the
// run and its budget, and closes the chat span. It returns the input the
// loop continues with: in, or an Abort when the turn crossed the budget.
func (d *driver) endChat(span trace.Span, in TransitionInput) TransitionInput {
	var over error
	if resp, ok := in.(ModelResponse); ok {
		if prices := d.rc.settings().prices; prices != nil && resp.Usage.Cost == 0 {
			_, model := DescribeModel(d.a.model)
			if cost, priced := prices.Cost(model, resp.Usage); priced {
				resp.Usage.Cost = cost
				in = resp
			}
		}
		d.obs.spent = d.obs.spent.Add(resp.Usage)
		if m := d.rc.settings().meter; m != nil {
			over = m.add(d.a.name, resp.Usage)
		}
		if span != nil {
			gentrace.SetResponse(span, spanUsage(resp.Usage), string(resp.Finish), resp.ResponseID, resp.ResponseModel)
		}
	} else if ab, ok := in.(Abort); ok && span != nil {
		gentrace.SetError(span, errorType(ab.Err), ab.Err)
	}
	if span != nil {
		span.End()
	}
	if over != nil {
		return Abort{Err: over}
	}
	return in
}

// startTool opens a tool call's execute_tool span; the tool's context
// carries it, so agents the tool runs nest under it.
func (d *driver) startTool(ctx context.Context, call ToolCall) (context.Context, trace.Span) {
	if !d.obs.trace.Recording() {
		return ctx, nil
	}
	return d.obs.trace.StartTool(ctx, call.Name, call.CallID)
}

func (d *driver) endTool(span trace.Span, out *callOutcome) {
	if span == nil {
		return
	}
	if !out.result.IsError {
		gentrace.EndTool(span, "", "")
		return
	}
	typ := "tool_error"
	switch {
	case out.result.InvalidArgs:
		typ = "invalid_args"
	case out.denied:
		// Known from the call, not from its events, which a live round
		// streams rather than keeps.
		typ = "permission_denied"
	}
	gentrace.EndTool(span, typ, strings.Join(resultTexts(out.result), "; "))
}

// ModelCall is one model call of a run, as the observer of
// [WithModelCallObserver] sees it just before the model is invoked.
type ModelCall struct {
	// Agent is the agent whose loop calls the model; Depth is its nesting
	// in the run: 0 for the top-level agent, more for handoff targets,
	// agent tools and workflow children.
	Agent string
	Depth int
	// Model is the model's id ([DescribeModel]).
	Model string
	Turn  int
	// Request is the request exactly as the model receives it (hook
	// injections included). It is the loop's own: read it during the call;
	// do not keep or change it.
	Request *ModelRequest
	// Checkpoint is the loop at the turn boundary before the call:
	// resuming it ([LLMAgent.Resume]) makes this call again, which is how
	// a run is forked. Its conversation is the loop's own, valid during
	// the call only: marshal or copy it there.
	Checkpoint *Checkpoint
}

// WithModelCallObserver makes every loop of the run, its sub-agents'
// included, call f with each model call just before invoking the model,
// on the loop's goroutine (so f delays the call by its own time). It is
// how a debugger shows what the model saw and where it could fork; a run
// without it pays one nil check a model call.
func WithModelCallObserver(f func(ctx context.Context, call *ModelCall)) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().callObserver = f })
}

// observeCall hands the call to the run's observer. injected are the hook
// injections the request carries, which the checkpoint holds as still due.
func (d *driver) observeCall(ctx context.Context, state LoopState, req *ModelRequest, injected []string) {
	_, model := DescribeModel(d.a.model)
	d.rc.settings().callObserver(ctx, &ModelCall{
		Agent: d.a.name, Depth: d.rc.depth, Model: model, Turn: progressOf(state).Turn, Request: req,
		Checkpoint: &Checkpoint{Agent: d.a.name, State: state, Conversation: d.tc.conversationView(), Injections: injected},
	})
}
