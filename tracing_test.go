package helikon_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/workflow"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

type lookupArgs struct {
	Account string `json:"account" jsonschema:"account id"`
}

var errAccountLocked = errors.New("account locked")

var lookupTool = helikon.MustTool("lookup", "Look up an account.",
	func(tc *helikon.ToolContext, in lookupArgs) (string, error) { return "", errAccountLocked })

// spanTree indexes recorded spans by id for parent and child lookups.
type spanTree struct {
	spans []sdktrace.ReadOnlySpan
	byID  map[trace.SpanID]sdktrace.ReadOnlySpan
}

func newSpanTree(spans []sdktrace.ReadOnlySpan) spanTree {
	t := spanTree{spans: spans, byID: map[trace.SpanID]sdktrace.ReadOnlySpan{}}
	for _, s := range spans {
		t.byID[s.SpanContext().SpanID()] = s
	}
	return t
}

// render prints the tree as indented span names, children in start order.
func (t spanTree) render() string {
	var b strings.Builder
	var walk func(parent trace.SpanID, depth int)
	walk = func(parent trace.SpanID, depth int) {
		var kids []sdktrace.ReadOnlySpan
		for _, s := range t.spans {
			if s.Parent().SpanID() == parent {
				kids = append(kids, s)
			}
		}
		slices.SortStableFunc(kids, func(a, b sdktrace.ReadOnlySpan) int {
			// Parallel tool calls start in any order: sort them by name.
			if a.StartTime().Equal(b.StartTime()) || strings.HasPrefix(a.Name(), "execute_tool") && strings.HasPrefix(b.Name(), "execute_tool") {
				return strings.Compare(a.Name(), b.Name())
			}
			return a.StartTime().Compare(b.StartTime())
		})
		for _, k := range kids {
			b.WriteString(strings.Repeat("  ", depth) + k.Name() + "\n")
			walk(k.SpanContext().SpanID(), depth+1)
		}
	}
	walk(trace.SpanID{}, 0)
	return b.String()
}

func (t spanTree) find(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range t.spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestTracing_HandoffAndTwoToolCallsProduceGenAISpanTree(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	billing, err := helikon.NewAgent("billing", mock.New([]mock.Script{
		mock.ToolCalls(
			mock.Call{ID: "call_add", Name: "add", Args: `{"a":40,"b":2}`},
			mock.Call{ID: "call_lookup", Name: "lookup", Args: `{"account":"a1"}`},
		),
		mock.Text("your balance is 42"),
	}, mock.WithModelID("billing-model")), helikon.WithTools(addTool, lookupTool), helikon.WithDescription("Answers billing questions."))
	if err != nil {
		t.Fatal(err)
	}
	triage, err := helikon.NewAgent("triage", mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_t", Name: "transfer_to_billing", Args: `{}`}),
	}, mock.WithModelID("triage-model")), helikon.WithHandoffs(helikon.HandoffTo(billing)))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(
		helikon.WithTracerProvider(tp),
		helikon.WithTracer(helikon.TracerHandle{SessionID: "sess-1", UserID: "user-7", Tags: []string{"eval", "prod"}}),
		helikon.WithPrices(helikon.Prices{"billing-model": {Input: 1, Output: 2}}),
	)
	res, err := helikon.Collect(triage.Run(context.Background(), rc, helikon.UserText("what is my balance?")))
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != "your balance is 42" {
		t.Fatalf("final output %q", res.FinalOutput)
	}

	tree := newSpanTree(sr.Ended())
	const want = `invoke_agent triage
  agent.turn
    chat triage-model
    invoke_agent billing
      agent.turn
        chat billing-model
        execute_tool add
        execute_tool lookup
      agent.turn
        chat billing-model
`
	if got := tree.render(); got != want {
		t.Fatalf("span tree:\n%s\nwant:\n%s", got, want)
	}
	if n := len(sr.Started()); n != len(sr.Ended()) {
		t.Fatalf("%d spans started, %d ended", n, len(sr.Ended()))
	}

	type check struct {
		span string
		idx  int
		want map[attribute.Key]attribute.Value
	}
	str, i64 := attribute.StringValue, attribute.Int64Value
	for _, c := range []check{
		{"invoke_agent triage", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIOperationNameKey: str("invoke_agent"),
			semconv.GenAIAgentNameKey:     str("triage"),
			semconv.GenAIProviderNameKey:  str("mock"),
			semconv.GenAIRequestModelKey:  str("triage-model"),
			semconv.SessionIDKey:          str("sess-1"),
			semconv.UserIDKey:             str("user-7"),
			"langfuse.trace.tags":         attribute.StringSliceValue([]string{"eval", "prod"}),
			// The run's totals: three turns of 10 in, 5 out; only billing
			// turns are priced (10·1 + 5·2 per million tokens each).
			semconv.GenAIUsageInputTokensKey:  i64(30),
			semconv.GenAIUsageOutputTokensKey: i64(15),
			"gen_ai.usage.cost":               attribute.Float64Value(2 * 20 / 1e6),
		}},
		{"invoke_agent billing", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIAgentNameKey:         str("billing"),
			"gen_ai.agent.description":        str("Answers billing questions."),
			semconv.GenAIUsageInputTokensKey:  i64(20),
			semconv.GenAIUsageOutputTokensKey: i64(10),
			semconv.SessionIDKey:              str("sess-1"),
		}},
		{"agent.turn", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIAgentNameKey: str("triage"),
			"helikon.turn":            i64(1),
			semconv.SessionIDKey:      str("sess-1"),
			semconv.UserIDKey:         str("user-7"),
			"langfuse.trace.tags":     attribute.StringSliceValue([]string{"eval", "prod"}),
		}},
		{"chat triage-model", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIOperationNameKey:         str("chat"),
			semconv.GenAIProviderNameKey:          str("mock"),
			semconv.GenAIRequestModelKey:          str("triage-model"),
			semconv.GenAIUsageInputTokensKey:      i64(10),
			semconv.GenAIUsageOutputTokensKey:     i64(5),
			semconv.GenAIResponseFinishReasonsKey: attribute.StringSliceValue([]string{"tool_calls"}),
		}},
		{"chat billing-model", 1, map[attribute.Key]attribute.Value{
			semconv.GenAIResponseFinishReasonsKey: attribute.StringSliceValue([]string{"stop"}),
			"gen_ai.usage.cost":                   attribute.Float64Value(20 / 1e6),
		}},
		{"execute_tool add", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIOperationNameKey: str("execute_tool"),
			semconv.GenAIToolNameKey:      str("add"),
			semconv.GenAIToolCallIDKey:    str("call_add"),
		}},
		{"execute_tool lookup", 0, map[attribute.Key]attribute.Value{
			semconv.GenAIToolNameKey:   str("lookup"),
			semconv.GenAIToolCallIDKey: str("call_lookup"),
			"error.type":               str("tool_error"),
		}},
	} {
		spans := tree.find(c.span)
		if c.span == "agent.turn" {
			// Turns end in no useful order; pick the triage agent's.
			spans = slices.DeleteFunc(spans, func(s sdktrace.ReadOnlySpan) bool {
				return attrs(s)[semconv.GenAIAgentNameKey].AsString() != "triage"
			})
		}
		if len(spans) <= c.idx {
			t.Fatalf("no span %q #%d", c.span, c.idx)
		}
		got := attrs(spans[c.idx])
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s #%d: %s = %v, want %v", c.span, c.idx, k, got[k].Emit(), v.Emit())
			}
		}
	}
	if s := tree.find("execute_tool lookup")[0]; s.Status().Code != codes.Error || !strings.Contains(s.Status().Description, "account locked") {
		t.Errorf("lookup span status %+v", s.Status())
	}
	if s := tree.find("execute_tool add")[0]; s.Status().Code == codes.Error {
		t.Errorf("add span status %+v", s.Status())
	}
	if k := tree.find("chat triage-model")[0].SpanKind(); k != trace.SpanKindClient {
		t.Errorf("chat span kind %v", k)
	}
}

func TestTracing_FailedRunMarksAgentAndChatSpans(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	model := mock.Scripted(mock.Fail(&helikon.ModelError{Kind: helikon.ModelRefused, Provider: "mock", Message: "no"}))
	agent, _ := helikon.NewAgent("refuser", model)
	_, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("hi")))
	if !errors.Is(err, helikon.ErrRefused) {
		t.Fatalf("err = %v", err)
	}
	tree := newSpanTree(sr.Ended())
	for name, typ := range map[string]string{"invoke_agent refuser": "refused", "chat mock": "refused"} {
		s := tree.find(name)
		if len(s) != 1 {
			t.Fatalf("span %q missing:\n%s", name, tree.render())
		}
		if s[0].Status().Code != codes.Error || attrs(s[0])["error.type"].AsString() != typ {
			t.Errorf("%s: status %v, error.type %q, want %q", name, s[0].Status(), attrs(s[0])["error.type"].AsString(), typ)
		}
	}
}

func TestTracing_StoppedConsumerEndsEverySpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	agent, _ := helikon.NewAgent("calc", mock.New(s1Scripts()), helikon.WithTools(addTool))
	for ev := range agent.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("go")) {
		if _, ok := ev.(helikon.ToolCallItem); ok {
			break
		}
	}
	if s, e := len(sr.Started()), len(sr.Ended()); s != e || s == 0 {
		t.Fatalf("%d spans started, %d ended", s, e)
	}
}

func TestTracing_SubAgentNestsUnderItsToolCall(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	temp := 0.2
	lead, _ := helikon.NewAgent("lead", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "r1", Name: "research", Args: `{"q":"x"}`}),
		mock.Text("answer"),
	), helikon.WithTools(researchTool(t)), helikon.WithSettings(helikon.ModelSettings{Temperature: &temp, MaxOutputTokens: 100}))
	if _, err := helikon.Collect(lead.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("go"))); err != nil {
		t.Fatal(err)
	}
	tree := newSpanTree(sr.Ended())
	const want = `invoke_agent lead
  agent.turn
    chat mock
    execute_tool research
      invoke_agent researcher
        agent.turn
          chat mock
  agent.turn
    chat mock
`
	if got := tree.render(); got != want {
		t.Fatalf("span tree:\n%s\nwant:\n%s", got, want)
	}
	chat := attrs(tree.find("chat mock")[0])
	if chat[semconv.GenAIRequestTemperatureKey] != attribute.Float64Value(0.2) || chat[semconv.GenAIRequestMaxTokensKey] != attribute.Int64Value(100) {
		t.Fatalf("chat request attributes %v", chat)
	}
}

func TestTracing_WorkflowAgentChildrenNestUnderIt(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	research, _ := helikon.NewAgent("research", mock.Scripted(mock.Text("facts")))
	write, _ := helikon.NewAgent("write", mock.Scripted(mock.Text("draft")))
	pipeline, err := workflow.NewSequential("pipeline", workflow.Step(research), workflow.Step(write))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helikon.Collect(pipeline.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("go"))); err != nil {
		t.Fatal(err)
	}
	const want = `invoke_agent pipeline
  invoke_agent research
    agent.turn
      chat mock
  invoke_agent write
    agent.turn
      chat mock
`
	tree := newSpanTree(sr.Ended())
	if got := tree.render(); got != want {
		t.Fatalf("span tree:\n%s\nwant:\n%s", got, want)
	}
	// The workflow's own span sums its children's usage (two mock turns of
	// 10 input and 5 output tokens each).
	a := attrs(tree.find("invoke_agent pipeline")[0])
	if a["gen_ai.usage.input_tokens"].AsInt64() != 20 || a["gen_ai.usage.output_tokens"].AsInt64() != 10 {
		t.Fatalf("workflow span attributes = %v", a)
	}
}

func TestTracing_FailedWorkflowMarksItsSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	ok, _ := helikon.NewAgent("ok", mock.Scripted(mock.Text("fine")))
	bad, _ := helikon.NewAgent("bad", mock.Scripted(mock.Fail(&helikon.ModelError{Kind: helikon.ModelUnavailable, Provider: "mock"})))
	fan, err := workflow.NewParallel("fan", workflow.Step(ok), workflow.Step(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helikon.Collect(fan.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("go"))); err == nil {
		t.Fatal("the parallel run succeeded with a failed branch")
	}
	s := newSpanTree(sr.Ended()).find("invoke_agent fan")
	if len(s) != 1 || s[0].Status().Code != codes.Error {
		t.Fatalf("workflow span = %+v", s)
	}
}

func TestTracing_ChatSpanCarriesTheResponseIDAndModel(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	model := mock.Scripted(mock.Events(
		helikon.ResponseInfo{ID: "resp_1", Model: "gpt-5-mini-2026-08-07"},
		helikon.TokenDelta{Text: "hi"},
		helikon.Finish{Reason: helikon.FinishStop},
	))
	agent, _ := helikon.NewAgent("greeter", model)
	if _, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("hi"))); err != nil {
		t.Fatal(err)
	}
	chat := newSpanTree(sr.Ended()).find("chat mock")
	if len(chat) != 1 {
		t.Fatalf("%d chat spans", len(chat))
	}
	a := attrs(chat[0])
	if a["gen_ai.response.id"].AsString() != "resp_1" || a["gen_ai.response.model"].AsString() != "gpt-5-mini-2026-08-07" {
		t.Fatalf("attributes = %v", a)
	}
}
