package helikon_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// seenCall is what a test keeps of a ModelCall: the observer may not keep
// the call itself.
type seenCall struct {
	agent       string
	depth, turn int
	model       string
	messages    int
	tools       int
	checkpoint  []byte
}

func observe(calls *[]seenCall) helikon.ContextOption {
	return helikon.WithModelCallObserver(func(_ context.Context, c *helikon.ModelCall) {
		cp, err := json.Marshal(c.Checkpoint)
		if err != nil {
			panic(err)
		}
		*calls = append(*calls, seenCall{agent: c.Agent, depth: c.Depth, turn: c.Turn, model: c.Model,
			messages: len(c.Request.Messages), tools: len(c.Request.Tools), checkpoint: cp})
	})
}

func TestModelCallObserver_SeesEveryCallsRequestAsTheModelGetsIt(t *testing.T) {
	m := mock.New(s1Scripts())
	agent := mustAgent(t, "calc", m, helikon.WithTools(addTool), helikon.WithInstructions("You add."))
	var calls []seenCall
	if _, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(observe(&calls)), helikon.UserText("40+2?"))); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(calls) != 2 || len(reqs) != 2 {
		t.Fatalf("%d calls observed, %d made", len(calls), len(reqs))
	}
	for i, c := range calls {
		if c.agent != "calc" || c.depth != 0 || c.turn != i+1 || c.model != "mock" {
			t.Errorf("call %d: %+v", i, c)
		}
		if c.messages != len(reqs[i].Messages) || c.tools != 1 {
			t.Errorf("call %d saw %d messages and %d tools, the model got %d and %d", i, c.messages, c.tools, len(reqs[i].Messages), len(reqs[i].Tools))
		}
	}
}

func TestModelCallObserver_ACallsCheckpointResumedMakesTheCallAgain(t *testing.T) {
	ctx := context.Background()
	var calls []seenCall
	first := mock.New(s1Scripts())
	full, err := helikon.Collect(mustAgent(t, "calc", first, helikon.WithTools(addTool)).
		Run(ctx, helikon.NewRunContext(observe(&calls)), helikon.UserText("40+2?")))
	if err != nil {
		t.Fatal(err)
	}
	var cp helikon.Checkpoint
	if err := json.Unmarshal(calls[1].checkpoint, &cp); err != nil {
		t.Fatal(err)
	}
	// Only the second turn's script: the first turn and its tool call are
	// not run again.
	again := mock.New(s1Scripts()[1:])
	res, err := helikon.Collect(mustAgent(t, "calc", again, helikon.WithTools(addTool)).Resume(ctx, nil, &cp))
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != full.FinalOutput {
		t.Errorf("resumed answer %q, want %q", res.FinalOutput, full.FinalOutput)
	}
	got, want := again.Requests()[0].Messages, first.Requests()[1].Messages
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("the resumed call's messages\n%s\nwant the original's\n%s", a, b)
	}
}

func TestModelCallObserver_SeesAnAgentToolsCallsOneDeeper(t *testing.T) {
	sub := mustAgent(t, "researcher", mock.New([]mock.Script{mock.Text("found it")}))
	tool, err := helikon.AgentAsTool(sub)
	if err != nil {
		t.Fatal(err)
	}
	top := mustAgent(t, "planner", mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "r1", Name: "researcher", Args: `{"input":"look"}`}),
		mock.Text("done"),
	}), helikon.WithTools(tool))
	var calls []seenCall
	if _, err := helikon.Collect(top.Run(context.Background(), helikon.NewRunContext(observe(&calls)), helikon.UserText("plan"))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.agent+"@"+string(rune('0'+c.depth)))
	}
	if want := []string{"planner@0", "researcher@1", "planner@0"}; !slicesEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

// BenchmarkRunS1WithModelCallObserver is BenchmarkRunS1OneToolRound with an
// observer that only counts the calls: what a debugger's seam costs when on
// (compare with BenchmarkRunS1OneToolRound, which runs with it off).
func BenchmarkRunS1WithModelCallObserver(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	n := 0
	rc := helikon.NewRunContext(helikon.WithModelCallObserver(func(context.Context, *helikon.ModelCall) { n++ }))
	b.ReportAllocs()
	for b.Loop() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		res, err := helikon.Collect(agent.Run(ctx, rc, helikon.UserText("what is 40+2?")))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("got %v, %v", res, err)
		}
	}
	if n == 0 {
		b.Fatal("the observer saw no call")
	}
}
