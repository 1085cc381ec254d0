package helikon

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of the spans the core emits.
const TracerName = "github.com/paigasus/helikon"

// The span attributes, from the OpenTelemetry GenAI semantic conventions
// unless noted.
const (
	attrOperation     = attribute.Key("gen_ai.operation.name")
	attrProvider      = attribute.Key("gen_ai.provider.name")
	attrRequestModel  = attribute.Key("gen_ai.request.model")
	attrAgentName     = attribute.Key("gen_ai.agent.name")
	attrAgentDesc     = attribute.Key("gen_ai.agent.description")
	attrTemperature   = attribute.Key("gen_ai.request.temperature")
	attrTopP          = attribute.Key("gen_ai.request.top_p")
	attrMaxTokens     = attribute.Key("gen_ai.request.max_tokens")
	attrResponseID    = attribute.Key("gen_ai.response.id")
	attrResponseModel = attribute.Key("gen_ai.response.model")
	attrFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	attrInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	attrCacheRead     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	attrCacheWrite    = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	attrToolName      = attribute.Key("gen_ai.tool.name")
	attrToolCallID    = attribute.Key("gen_ai.tool.call.id")
	attrToolType      = attribute.Key("gen_ai.tool.type")
	attrErrorType     = attribute.Key("error.type")
	attrSessionID     = attribute.Key("session.id")
	attrUserID        = attribute.Key("user.id")
	// Not in the conventions: the keys Langfuse reads for tags and cost,
	// and the reasoning-token count and turn number.
	attrTags            = attribute.Key("langfuse.trace.tags")
	attrCost            = attribute.Key("gen_ai.usage.cost")
	attrReasoningTokens = attribute.Key("gen_ai.usage.reasoning_tokens")
	attrTurn            = attribute.Key("helikon.turn")
)

// WithTracerProvider sets the OpenTelemetry tracer provider of the run's
// spans; handoffs and sub-agents share it. Without it runs use
// otel.GetTracerProvider(), which is a no-op until the program installs one.
//
// An LLM agent's run produces the tree
//
//	invoke_agent {agent}            one per agent run; a handoff target's
//	└─ agent.turn                   and a sub-agent's nest under the turn
//	   ├─ chat {model}              or tool that started them
//	   └─ execute_tool {tool}
//
// with the GenAI semantic-convention attributes (gen_ai.operation.name,
// gen_ai.provider.name, gen_ai.request.model, gen_ai.agent.name,
// gen_ai.usage.*, gen_ai.response.finish_reasons, gen_ai.tool.name,
// gen_ai.tool.call.id, error.type), the [TracerHandle]'s session.id, user.id
// and tags (as langfuse.trace.tags) on the agent and turn spans, and
// gen_ai.usage.cost when the run has a price table. Message content is never
// recorded. Workflow agents (sequential, parallel, loop, swarm, graph) open
// an invoke_agent span of their own that their children nest under. When
// the agent span is not recording (no provider installed, or
// the trace is not sampled) the run creates no further spans.
func WithTracerProvider(tp trace.TracerProvider) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.tp = tp })
}

// agentTrace is the invoke_agent span of one agent run and the agent.turn
// span of its current turn. The LLM agent's driver keeps one; any other
// agent (a workflow agent, say) opens one with startAgentTrace and closes it
// with end to appear in the trace with its children nested under it. A nil
// *agentTrace, what an untraced run has, does nothing.
type agentTrace struct {
	tracer trace.Tracer
	live   bool // the agent span records; otherwise no other span is made
	span   trace.Span
	ctx    context.Context // carries span
	turn   trace.Span
	handle TracerHandle
	agent  string
	ended  bool
}

// startAgentTrace opens an agent span under ctx's span and returns the
// context the agent's children run in. model may be nil. With no tracer
// provider installed it returns ctx and a nil trace, at no cost.
func startAgentTrace(ctx context.Context, rc *RunContext, agent, description string, model Model) (context.Context, *agentTrace) {
	tracer := runTracer(rc.tp)
	if tracer == nil {
		return ctx, nil
	}
	t := &agentTrace{tracer: tracer, agent: agent, handle: rc.tracer}
	ctx, t.span = tracer.Start(ctx, "invoke_agent")
	t.ctx = ctx
	if t.live = t.span.IsRecording(); !t.live {
		return ctx, t
	}
	t.span.SetName("invoke_agent " + agent)
	t.span.SetAttributes(attrOperation.String("invoke_agent"), attrAgentName.String(agent))
	if model != nil {
		provider, id := DescribeModel(model)
		t.span.SetAttributes(attrProvider.String(provider), attrRequestModel.String(id))
	}
	if description != "" {
		t.span.SetAttributes(attrAgentDesc.String(description))
	}
	setHandleAttrs(t.span, t.handle)
	return ctx, t
}

// recording reports whether the run's spans record.
func (t *agentTrace) recording() bool { return t != nil && t.live }

// startTurn ends the current turn span and opens the next one.
func (t *agentTrace) startTurn(turn int) {
	if !t.recording() {
		return
	}
	if t.turn != nil {
		t.turn.End()
	}
	_, t.turn = t.tracer.Start(t.ctx, "agent.turn", trace.WithAttributes(
		attrAgentName.String(t.agent), attrTurn.Int(turn)))
	setHandleAttrs(t.turn, t.handle)
}

// inTurn returns ctx with the current turn span, if any, as the parent of
// new spans.
func (t *agentTrace) inTurn(ctx context.Context) context.Context {
	if !t.recording() || t.turn == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, t.turn)
}

// end closes the spans with the run's usage and failure; later calls do
// nothing.
func (t *agentTrace) end(u Usage, err error) {
	if t == nil || t.ended {
		return
	}
	t.ended = true
	if t.turn != nil {
		t.turn.End()
		t.turn = nil
	}
	if t.live {
		setUsageAttrs(t.span, u)
		if err != nil {
			setError(t.span, err)
		}
	}
	if t.span != nil {
		t.span.End()
	}
}

// observer is a driver's telemetry and accounting: its spans, the usage it
// has spent, and the sink its sub-agents report into.
type observer struct {
	trace *agentTrace
	// raw is the consumer's own yield. The model's deltas and a handoff's
	// stream (the transfer and the target's events) go straight to it: the
	// observer has nothing to do with them, and deltas are too many to pay
	// for a wrapper each.
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
// the stream the driver yields to, which closes spans and stamps usage on
// the terminal event. The driver defers endObserve.
func (d *driver) observe(ctx context.Context, yield func(Event) bool) (context.Context, func(Event) bool) {
	o := &d.obs
	// Runs nested under this one (agents its tools start) find its sink in
	// their context, as the run it nests in found its own.
	o.parent, _ = ctx.Value(sinkKey{}).(*usageSink)
	o.ctx = sinkContext{Context: ctx, sink: &o.sink}
	ctx = &o.ctx
	if d.rc.budget.set() && d.rc.meter == nil {
		// The top-level run of a budget: its meter is shared by every run
		// nested in it through the RunContext.
		rc := *d.rc
		rc.meter = &budgetMeter{limit: rc.budget}
		d.rc = &rc
	}
	ctx, o.trace = startAgentTrace(ctx, d.rc, d.a.name, d.a.description, d.a.model)
	o.raw = yield
	return ctx, func(ev Event) bool {
		switch e := ev.(type) {
		case TurnStarted:
			o.trace.startTurn(e.Turn)
		case RunCompleted:
			if u := d.settleUsage(); u != e.Usage {
				e.Usage = u
				ev = e
			}
			o.trace.end(e.Usage, nil)
		case RunFailed:
			if u := d.settleUsage(); u != e.Usage {
				e.Usage = u
				ev = e
			}
			o.trace.end(e.Usage, e.Err)
		case RunPaused:
			o.trace.end(e.Usage, nil)
		}
		return yield(ev)
	}
}

// unsetProvider is what otel.GetTracerProvider returns until the program
// installs a provider: the OpenTelemetry API's internal delegating provider.
// It is nil if a provider was installed before this package initialised.
var unsetProvider = func() trace.TracerProvider {
	tp := otel.GetTracerProvider()
	if t := reflect.TypeOf(tp); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global" {
		return tp
	}
	return nil
}()

// runTracer returns the tracer of a run, or nil when the run cannot be
// traced because no provider is installed. Skipping the span then keeps an
// untraced run free of telemetry allocations.
func runTracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		if tp = otel.GetTracerProvider(); unsetProvider != nil && tp == unsetProvider {
			return nil
		}
	}
	return tp.Tracer(TracerName)
}

// endObserve closes the spans of a run its consumer stopped early.
func (d *driver) endObserve() { d.obs.trace.end(Usage{}, nil) }

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

func setHandleAttrs(s trace.Span, h TracerHandle) {
	if h.SessionID != "" {
		s.SetAttributes(attrSessionID.String(h.SessionID))
	}
	if h.UserID != "" {
		s.SetAttributes(attrUserID.String(h.UserID))
	}
	if len(h.Tags) > 0 {
		s.SetAttributes(attrTags.StringSlice(h.Tags))
	}
}

func setUsageAttrs(s trace.Span, u Usage) {
	s.SetAttributes(attrInputTokens.Int64(u.InputTokens), attrOutputTokens.Int64(u.OutputTokens))
	if u.CachedInputTokens > 0 {
		s.SetAttributes(attrCacheRead.Int64(u.CachedInputTokens))
	}
	if u.CacheWriteTokens > 0 {
		s.SetAttributes(attrCacheWrite.Int64(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		s.SetAttributes(attrReasoningTokens.Int64(u.ReasoningTokens))
	}
	if u.Cost > 0 {
		s.SetAttributes(attrCost.Float64(u.Cost))
	}
}

// setError marks s failed with err's low-cardinality type.
func setError(s trace.Span, err error) {
	s.SetAttributes(attrErrorType.String(errorType(err)))
	s.SetStatus(codes.Error, err.Error())
}

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
	return context.WithValue(d.obs.trace.inTurn(ctx), sinkKey{}, (*usageSink)(nil))
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
	if m := d.rc.meter; m != nil {
		if err := m.spent(d.a.name); err != nil {
			return ctx, nil, Abort{Err: err}
		}
	}
	t := d.obs.trace
	if !t.recording() {
		return ctx, nil, nil
	}
	provider, model := DescribeModel(d.a.model)
	name := "chat"
	if model != "" {
		name += " " + model
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attrOperation.String("chat"), attrProvider.String(provider), attrRequestModel.String(model))
	if temp := req.Settings.Temperature; temp != nil {
		attrs = append(attrs, attrTemperature.Float64(*temp))
	}
	if p := req.Settings.TopP; p != nil {
		attrs = append(attrs, attrTopP.Float64(*p))
	}
	if n := req.Settings.MaxOutputTokens; n > 0 {
		attrs = append(attrs, attrMaxTokens.Int(n))
	}
	ctx, span = t.tracer.Start(t.inTurn(ctx), name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, span, nil
}

// endChat settles a model turn: it prices the usage, books it against the
// run and its budget, and closes the chat span. It returns the input the
// loop continues with: in, or an Abort when the turn crossed the budget.
func (d *driver) endChat(span trace.Span, in TransitionInput) TransitionInput {
	var over error
	if resp, ok := in.(ModelResponse); ok {
		if d.rc.prices != nil && resp.Usage.Cost == 0 {
			_, model := DescribeModel(d.a.model)
			if cost, priced := d.rc.prices.Cost(model, resp.Usage); priced {
				resp.Usage.Cost = cost
				in = resp
			}
		}
		d.obs.spent = d.obs.spent.Add(resp.Usage)
		if m := d.rc.meter; m != nil {
			over = m.add(d.a.name, resp.Usage)
		}
		if span != nil {
			setUsageAttrs(span, resp.Usage)
			if resp.Finish != "" {
				span.SetAttributes(attrFinishReasons.StringSlice([]string{string(resp.Finish)}))
			}
			if resp.ResponseID != "" {
				span.SetAttributes(attrResponseID.String(resp.ResponseID))
			}
			if resp.ResponseModel != "" {
				span.SetAttributes(attrResponseModel.String(resp.ResponseModel))
			}
		}
	} else if ab, ok := in.(Abort); ok && span != nil {
		setError(span, ab.Err)
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
	t := d.obs.trace
	if !t.recording() {
		return ctx, nil
	}
	return t.tracer.Start(t.inTurn(ctx), "execute_tool "+call.Name, trace.WithAttributes(
		attrOperation.String("execute_tool"),
		attrToolName.String(call.Name),
		attrToolCallID.String(call.CallID),
		attrToolType.String("function"),
	))
}

// endTool closes a tool call's span with its outcome.
func (d *driver) endTool(span trace.Span, out *callOutcome) {
	if span == nil {
		return
	}
	if out.result.IsError {
		typ := "tool_error"
		switch {
		case out.result.InvalidArgs:
			typ = "invalid_args"
		case len(out.events) > 0:
			if _, denied := out.events[len(out.events)-1].(PermissionDenied); denied {
				typ = "permission_denied"
			}
		}
		span.SetAttributes(attrErrorType.String(typ))
		span.SetStatus(codes.Error, strings.Join(resultTexts(out.result), "; "))
	}
	span.End()
}
