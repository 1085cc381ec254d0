package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

// The scenarios of the README's comparison, each with a scripted model
// that answers in process (no network, no provider SDK), built and run
// once per iteration on both sides:
//
//	S1 one tool round: a call to add, then the answer;
//	S2 ten rounds of four parallel calls to add, then the answer;
//	S3 one streamed answer of 1,000 deltas;
//	S4 a parallel agent over three agents that each answer at once.

// addArgs is the tool's input; each SDK reads its own jsonschema tag
// format, so each side has its own type.
type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type eAddArgs struct {
	A int `json:"a" jsonschema:"description=first addend"`
	B int `json:"b" jsonschema:"description=second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// --- Helikon ---

var hAdd = helikon.MustTool("add", "Add two integers.",
	func(_ *helikon.ToolContext, in addArgs) (addOut, error) { return addOut{Sum: in.A + in.B}, nil },
	helikon.WithEffect(helikon.ReadOnly))

func hRounds(rounds, calls int, answer string) []mock.Script {
	var s []mock.Script
	for r := range rounds {
		var cs []mock.Call
		for i := range calls {
			cs = append(cs, mock.Call{ID: fmt.Sprintf("c%d_%d", r, i), Name: "add", Args: `{"a":40,"b":2}`})
		}
		s = append(s, mock.ToolCalls(cs...))
	}
	return append(s, mock.Text(answer))
}

func hToolRun(b *testing.B, ctx context.Context, scripts []mock.Script, want string) {
	a, err := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(hAdd))
	if err != nil {
		b.Fatal(err)
	}
	res, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("what is 40+2?")))
	if err != nil || res.FinalOutput != want {
		b.Fatalf("helikon: %q, %v", res.FinalOutput, err)
	}
}

func hStream(b *testing.B, ctx context.Context, parts []string) {
	a, err := helikon.NewAgent("streamer", mock.New([]mock.Script{mock.Deltas(parts...)}))
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for ev := range a.Run(ctx, nil, helikon.UserText("stream")) {
		if _, ok := ev.(helikon.TokenDelta); ok {
			n++
		}
	}
	if n != len(parts) {
		b.Fatalf("helikon: %d deltas", n)
	}
}

func hParallel(b *testing.B, ctx context.Context) {
	var steps []workflow.WorkflowOption
	for _, name := range []string{"a", "b", "c"} {
		a, err := helikon.NewAgent(name, mock.Scripted(mock.Text(name)))
		if err != nil {
			b.Fatal(err)
		}
		steps = append(steps, workflow.Step(a))
	}
	p, err := workflow.NewParallel("p", steps...)
	if err != nil {
		b.Fatal(err)
	}
	res, err := helikon.Collect(p.Run(ctx, nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != `{"a":"a","b":"b","c":"c"}` {
		b.Fatalf("helikon: %q, %v", res.FinalOutput, err)
	}
}

// --- eino (adk) ---

// scriptedModel answers like the mock: rounds of calls parallel calls to
// add, counted from the tool results already in the conversation, then
// answer; or, streaming, the deltas.
type scriptedModel struct {
	rounds, calls int
	answer        string
	deltas        []string
}

func (m *scriptedModel) reply(msgs []*schema.Message) *schema.Message {
	done := 0
	for _, msg := range msgs {
		if msg.Role == schema.Assistant && len(msg.ToolCalls) > 0 {
			done++
		}
	}
	if done >= m.rounds {
		return schema.AssistantMessage(m.answer, nil)
	}
	calls := make([]schema.ToolCall, m.calls)
	for i := range calls {
		calls[i] = schema.ToolCall{ID: fmt.Sprintf("c%d_%d", done, i), Type: "function",
			Function: schema.FunctionCall{Name: "add", Arguments: `{"a":40,"b":2}`}}
	}
	return schema.AssistantMessage("", calls)
}

func (m *scriptedModel) Generate(_ context.Context, msgs []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return m.reply(msgs), nil
}

func (m *scriptedModel) Stream(_ context.Context, msgs []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if m.deltas == nil {
		return schema.StreamReaderFromArray([]*schema.Message{m.reply(msgs)}), nil
	}
	chunks := make([]*schema.Message, len(m.deltas))
	for i, d := range m.deltas {
		chunks[i] = schema.AssistantMessage(d, nil)
	}
	return schema.StreamReaderFromArray(chunks), nil
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

func eAdd(b *testing.B) tool.BaseTool {
	t, err := utils.InferTool("add", "Add two integers.", func(_ context.Context, in eAddArgs) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return t
}

func eAgent(b *testing.B, name string, m model.ToolCallingChatModel, tools []tool.BaseTool) adk.Agent {
	cfg := &adk.ChatModelAgentConfig{Name: name, Description: name, Instruction: "", Model: m, MaxIterations: 100}
	if tools != nil {
		cfg.ToolsConfig = adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}}
	}
	a, err := adk.NewChatModelAgent(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// eRun runs agent to its end and returns the text of its last message
// and the number of streamed chunks read.
func eRun(b *testing.B, ctx context.Context, agent adk.Agent, streaming bool, input string) (last string, chunks int) {
	r := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
	it := r.Query(ctx, input)
	for {
		ev, ok := it.Next()
		if !ok {
			return last, chunks
		}
		if ev.Err != nil {
			b.Fatal(ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		mo := ev.Output.MessageOutput
		if !mo.IsStreaming {
			last = mo.Message.Content
			continue
		}
		var sb strings.Builder
		for {
			c, err := mo.MessageStream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			sb.WriteString(c.Content)
			chunks++
		}
		last = sb.String()
	}
}

func eToolRun(b *testing.B, ctx context.Context, rounds, calls int, want string) {
	m := &scriptedModel{rounds: rounds, calls: calls, answer: want}
	if last, _ := eRun(b, ctx, eAgent(b, "calc", m, []tool.BaseTool{eAdd(b)}), false, "what is 40+2?"); last != want {
		b.Fatalf("eino: %q", last)
	}
}

func eStream(b *testing.B, ctx context.Context, parts []string) {
	m := &scriptedModel{deltas: parts}
	if _, n := eRun(b, ctx, eAgent(b, "streamer", m, nil), true, "stream"); n != len(parts) {
		b.Fatalf("eino: %d chunks", n)
	}
}

func eParallel(b *testing.B, ctx context.Context) {
	var subs []adk.Agent
	for _, name := range []string{"a", "b", "c"} {
		subs = append(subs, eAgent(b, name, &scriptedModel{answer: name}, nil))
	}
	p, err := adk.NewParallelAgent(ctx, &adk.ParallelAgentConfig{Name: "p", Description: "p", SubAgents: subs})
	if err != nil {
		b.Fatal(err)
	}
	it := adk.NewRunner(ctx, adk.RunnerConfig{Agent: p}).Query(ctx, "go")
	answers := 0
	for {
		ev, ok := it.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			b.Fatal(ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			answers++
		}
	}
	if answers != 3 {
		b.Fatalf("eino: %d answers", answers)
	}
}

// scenario is one of S1–S4 on Helikon's side.
type scenario struct {
	name    string
	helikon func()
}

// helikonScenarios returns S1–S4 on Helikon under ctx, in order; each
// peer's benchmark pairs them with its own.
func helikonScenarios(b *testing.B, ctx context.Context) []scenario {
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = "tok "
	}
	s1, s2 := hRounds(1, 1, "sum is 42"), hRounds(10, 4, "done")
	return []scenario{
		{"S1", func() { hToolRun(b, ctx, s1, "sum is 42") }},
		{"S2", func() { hToolRun(b, ctx, s2, "done") }},
		{"S3", func() { hStream(b, ctx, parts) }},
		{"S4", func() { hParallel(b, ctx) }},
	}
}

// BenchmarkScenariosVsEino runs each scenario on both SDKs in every
// iteration and reports x-eino: Helikon's time over eino's. S1–S4 run on
// context.Background(); S1_cancellable–S4_cancellable run both SDKs on a
// context that can be cancelled, as a server request's is, on which
// Helikon runs tool calls on a worker goroutine (see
// BenchmarkCancellableVsBackground in the root package).
func BenchmarkScenariosVsEino(b *testing.B) {
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = "tok "
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, run := range []struct {
		suffix string
		ctx    context.Context
	}{{"", context.Background()}, {"_cancellable", cancellable}} {
		ctx := run.ctx
		eino := map[string]func(){
			"S1": func() { eToolRun(b, ctx, 1, 1, "sum is 42") },
			"S2": func() { eToolRun(b, ctx, 10, 4, "done") },
			"S3": func() { eStream(b, ctx, parts) },
			"S4": func() { eParallel(b, ctx) },
		}
		for _, sc := range helikonScenarios(b, ctx) {
			b.Run(sc.name+run.suffix, func(b *testing.B) {
				e := eino[sc.name]
				sc.helikon()
				e()
				b.ReportAllocs()
				benchpair.Run(b, "eino", e, "helikon", sc.helikon)
			})
		}
	}
}
