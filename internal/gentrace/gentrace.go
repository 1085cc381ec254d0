// Package gentrace is the OpenTelemetry vocabulary of the core's spans: the
// GenAI semantic-convention attribute keys (and the few the core adds), how
// a run finds its tracer, and an agent's invoke_agent span with its
// agent.turn children. It knows no core type: the core hands it names,
// token counts and error types, and decides which spans a run opens.
package gentrace

import (
	"context"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The span attributes, from the OpenTelemetry GenAI semantic conventions
// unless noted.
const (
	Operation     = attribute.Key("gen_ai.operation.name")
	Provider      = attribute.Key("gen_ai.provider.name")
	RequestModel  = attribute.Key("gen_ai.request.model")
	AgentName     = attribute.Key("gen_ai.agent.name")
	AgentDesc     = attribute.Key("gen_ai.agent.description")
	Temperature   = attribute.Key("gen_ai.request.temperature")
	TopP          = attribute.Key("gen_ai.request.top_p")
	MaxTokens     = attribute.Key("gen_ai.request.max_tokens")
	ResponseID    = attribute.Key("gen_ai.response.id")
	ResponseModel = attribute.Key("gen_ai.response.model")
	FinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	InputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	OutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	CacheRead     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	CacheWrite    = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	ToolName      = attribute.Key("gen_ai.tool.name")
	ToolCallID    = attribute.Key("gen_ai.tool.call.id")
	ToolType      = attribute.Key("gen_ai.tool.type")
	ErrorType     = attribute.Key("error.type")
	SessionID     = attribute.Key("session.id")
	UserID        = attribute.Key("user.id")
	// Not in the conventions: the keys Langfuse reads for tags and cost,
	// and the reasoning-token count and turn number.
	Tags            = attribute.Key("langfuse.trace.tags")
	Cost            = attribute.Key("gen_ai.usage.cost")
	ReasoningTokens = attribute.Key("gen_ai.usage.reasoning_tokens")
	Turn            = attribute.Key("helikon.turn")
)

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

// Tracer returns the tracer named name of a run whose provider is tp (nil:
// the program's global one), or nil when the run cannot be traced because
// no provider is installed. Skipping the span then keeps an untraced run
// free of telemetry allocations.
func Tracer(tp trace.TracerProvider, name string) trace.Tracer {
	if tp == nil {
		if tp = otel.GetTracerProvider(); unsetProvider != nil && tp == unsetProvider {
			return nil
		}
	}
	return tp.Tracer(name)
}

// Handle is the trace attributes a run carries on its agent and turn spans.
type Handle struct {
	SessionID, UserID string
	Tags              []string
}

// Usage is a span's token usage and cost.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, Reasoning int64
	Cost                                            float64
}

func setHandle(s trace.Span, h Handle) {
	if h.SessionID != "" {
		s.SetAttributes(SessionID.String(h.SessionID))
	}
	if h.UserID != "" {
		s.SetAttributes(UserID.String(h.UserID))
	}
	if len(h.Tags) > 0 {
		s.SetAttributes(Tags.StringSlice(h.Tags))
	}
}

// SetUsage records u on s; counts and cost that are zero, but the input
// and output tokens, are left out.
func SetUsage(s trace.Span, u Usage) {
	s.SetAttributes(InputTokens.Int64(u.Input), OutputTokens.Int64(u.Output))
	if u.CacheRead > 0 {
		s.SetAttributes(CacheRead.Int64(u.CacheRead))
	}
	if u.CacheWrite > 0 {
		s.SetAttributes(CacheWrite.Int64(u.CacheWrite))
	}
	if u.Reasoning > 0 {
		s.SetAttributes(ReasoningTokens.Int64(u.Reasoning))
	}
	if u.Cost > 0 {
		s.SetAttributes(Cost.Float64(u.Cost))
	}
}

// SetError marks s failed with err, of the low-cardinality type typ.
func SetError(s trace.Span, typ string, err error) {
	s.SetAttributes(ErrorType.String(typ))
	s.SetStatus(codes.Error, err.Error())
}

// Agent is the invoke_agent span of one agent run and the agent.turn span
// of its current turn. A nil *Agent, what an untraced run has, does
// nothing.
type Agent struct {
	tracer trace.Tracer
	live   bool // the agent span records; otherwise no other span is made
	span   trace.Span
	ctx    context.Context // carries span
	turn   trace.Span
	handle Handle
	agent  string
	ended  bool
}

// StartAgent opens the invoke_agent span of agent with tracer under ctx's
// span and returns the context the agent's children run in. model, when
// not nil, names the agent's model's provider and id.
func StartAgent(ctx context.Context, tracer trace.Tracer, agent, description string, h Handle, model func() (provider, id string)) (context.Context, *Agent) {
	t := &Agent{tracer: tracer, agent: agent, handle: h}
	ctx, t.span = tracer.Start(ctx, "invoke_agent")
	t.ctx = ctx
	if t.live = t.span.IsRecording(); !t.live {
		return ctx, t
	}
	t.span.SetName("invoke_agent " + agent)
	t.span.SetAttributes(Operation.String("invoke_agent"), AgentName.String(agent))
	if model != nil {
		provider, id := model()
		t.span.SetAttributes(Provider.String(provider), RequestModel.String(id))
	}
	if description != "" {
		t.span.SetAttributes(AgentDesc.String(description))
	}
	setHandle(t.span, t.handle)
	return ctx, t
}

// Recording reports whether the run's spans record.
func (t *Agent) Recording() bool { return t != nil && t.live }

// Tracer returns the tracer the agent's spans are made with.
func (t *Agent) Tracer() trace.Tracer { return t.tracer }

// StartTurn ends the current turn span and opens the next one.
func (t *Agent) StartTurn(turn int) {
	if !t.Recording() {
		return
	}
	if t.turn != nil {
		t.turn.End()
	}
	_, t.turn = t.tracer.Start(t.ctx, "agent.turn", trace.WithAttributes(
		AgentName.String(t.agent), Turn.Int(turn)))
	setHandle(t.turn, t.handle)
}

// InTurn returns ctx with the current turn span, if any, as the parent of
// new spans.
func (t *Agent) InTurn(ctx context.Context) context.Context {
	if !t.Recording() || t.turn == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, t.turn)
}

// End closes the spans with the run's usage and, when err is not nil, its
// failure of type errType; later calls do nothing.
func (t *Agent) End(u Usage, errType string, err error) {
	if t == nil || t.ended {
		return
	}
	t.ended = true
	if t.turn != nil {
		t.turn.End()
		t.turn = nil
	}
	if t.live {
		SetUsage(t.span, u)
		if err != nil {
			SetError(t.span, errType, err)
		}
	}
	if t.span != nil {
		t.span.End()
	}
}

// StartChat opens a model call's chat span in the current turn, with the
// request's settings that are set (nil, or 0 tokens, is not).
func (t *Agent) StartChat(ctx context.Context, provider, model string, temperature, topP *float64, maxTokens int) (context.Context, trace.Span) {
	name := "chat"
	if model != "" {
		name += " " + model
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, Operation.String("chat"), Provider.String(provider), RequestModel.String(model))
	if temperature != nil {
		attrs = append(attrs, Temperature.Float64(*temperature))
	}
	if topP != nil {
		attrs = append(attrs, TopP.Float64(*topP))
	}
	if maxTokens > 0 {
		attrs = append(attrs, MaxTokens.Int(maxTokens))
	}
	return t.tracer.Start(t.InTurn(ctx), name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// SetResponse records a settled model response on its chat span; empty
// values are left out.
func SetResponse(s trace.Span, u Usage, finish, id, model string) {
	SetUsage(s, u)
	if finish != "" {
		s.SetAttributes(FinishReasons.StringSlice([]string{finish}))
	}
	if id != "" {
		s.SetAttributes(ResponseID.String(id))
	}
	if model != "" {
		s.SetAttributes(ResponseModel.String(model))
	}
}

// StartTool opens a tool call's execute_tool span in the current turn.
func (t *Agent) StartTool(ctx context.Context, name, callID string) (context.Context, trace.Span) {
	return t.tracer.Start(t.InTurn(ctx), "execute_tool "+name, trace.WithAttributes(
		Operation.String("execute_tool"), ToolName.String(name), ToolCallID.String(callID), ToolType.String("function")))
}

// EndTool ends a tool call's span, failed with errType and message when
// errType is not empty.
func EndTool(s trace.Span, errType, message string) {
	if errType != "" {
		s.SetAttributes(ErrorType.String(errType))
		s.SetStatus(codes.Error, message)
	}
	s.End()
}
