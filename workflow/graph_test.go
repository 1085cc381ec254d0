package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestGraph_DiamondFeedsPredecessorsIntoTheSink(t *testing.T) {
	summaryModel := mock.Scripted(mock.Text("You saved $900 this month."))
	g, err := workflow.NewGraph("finance_report",
		workflow.WithDescription("Spending and income into a summary."),
		workflow.Node("spending", answerer(t, "spending-analyst", "spent $2,100")),
		workflow.Node("income", answerer(t, "income-analyst", "earned $3,000")),
		workflow.Node("summary", mustAgent(t, "summarizer", summaryModel, readsState("spending"))),
		workflow.Edge("spending", "summary"),
		workflow.Edge("income", "summary"))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(g.Run(context.Background(), rc, helikon.UserText("How did November go?")))
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != "You saved $900 this month." || res.LastAgent != "finance_report" {
		t.Fatalf("final = %q by %q", res.FinalOutput, res.LastAgent)
	}
	msgs := summaryModel.Requests()[0].Messages
	var texts []string
	for _, it := range msgs {
		texts = append(texts, string(it.Role)+": "+it.Text())
	}
	want := []string{
		"system: Notes: spent $2,100",
		"user: How did November go?",
		"user: Output of spending:\nspent $2,100",
		"user: Output of income:\nearned $3,000",
	}
	if !slicesEqual(texts, want) {
		t.Errorf("summary saw %q\nwant %q", texts, want)
	}
	for k, v := range map[string]string{"spending": "spent $2,100", "income": "earned $3,000", "summary": "You saved $900 this month."} {
		if rc.State().String(k) != v {
			t.Errorf("state[%s] = %q", k, rc.State().String(k))
		}
	}
	if res.Usage != (helikon.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Errorf("usage = %+v", res.Usage)
	}
	if countEvents[helikon.RunStarted](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 1 || countEvents[helikon.AgentUpdated](res.Events) != 3 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	// The summary starts only after both predecessors finished.
	last := map[string]int{}
	for i, ev := range res.Events {
		if m, ok := ev.(helikon.MessageOutput); ok {
			last[m.Item.Agent] = i
		}
		if u, ok := ev.(helikon.AgentUpdated); ok && u.Agent == "summarizer" {
			if _, a := last["spending-analyst"]; !a {
				t.Error("summary started before spending finished")
			}
			if _, b := last["income-analyst"]; !b {
				t.Error("summary started before income finished")
			}
		}
	}
}

func TestGraph_ReadyNodesRunConcurrently(t *testing.T) {
	root := barrier(2)
	g, _ := workflow.NewGraph("g", workflow.Node("a", root("a")), workflow.Node("b", root("b")),
		workflow.Node("c", answerer(t, "c", "joined")), workflow.Edge("a", "c"), workflow.Edge("b", "c"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := helikon.Collect(g.Run(ctx, nil, nil)); err != nil || res.FinalOutput != "joined" {
		t.Fatalf("ready nodes did not run at once: %v", err)
	}
}

func TestGraph_SeveralSinksMergeDeterministically(t *testing.T) {
	want := `{"left":"L","middle":"M","right":"R"}`
	for run := range 8 {
		delayed := func(name, text string) helikon.Agent {
			return mustAgent(t, name, mock.New([]mock.Script{mock.Text(text)}, mock.WithDelay(time.Duration(rand.IntN(6))*time.Millisecond)))
		}
		g, err := workflow.NewGraph("g",
			workflow.Node("root", delayed("root", "R0")),
			workflow.Node("right", delayed("r", "R")),
			workflow.Node("left", delayed("l", "L")),
			workflow.Node("middle", delayed("m", "M")),
			workflow.Edge("root", "left"), workflow.Edge("root", "right"), workflow.Edge("root", "middle"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := helikon.Collect(g.Run(context.Background(), nil, helikon.UserText("go")))
		if err != nil || res.FinalOutput != want {
			t.Fatalf("run %d: %v, final = %q, want %q", run, err, res.FinalOutput, want)
		}
	}
}

func TestGraph_FailedNodeSkipsDescendantsWhileIndependentBranchesFinish(t *testing.T) {
	// a ─→ b ─→ d        c ─→ e
	//      └──→ f ←── c
	dModel, fModel := mock.Scripted(mock.Text("never")), mock.Scripted(mock.Text("never"))
	g, err := workflow.NewGraph("g",
		workflow.Node("a", answerer(t, "a", "A")),
		workflow.Node("b", mustAgent(t, "b", mock.Scripted(mock.Fail(errors.New("b broke"))))),
		workflow.Node("c", mustAgent(t, "c", mock.New([]mock.Script{mock.Text("C")}, mock.WithDelay(5*time.Millisecond)))),
		workflow.Node("d", mustAgent(t, "d", dModel)),
		workflow.Node("e", answerer(t, "e", "E")),
		workflow.Node("f", mustAgent(t, "f", fModel)),
		workflow.Edge("a", "b"), workflow.Edge("b", "d"), workflow.Edge("b", "f"), workflow.Edge("c", "f"), workflow.Edge("c", "e"))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(g.Run(context.Background(), rc, helikon.UserText("go")))
	var wf *workflow.WorkflowError
	if !errors.As(err, &wf) {
		t.Fatalf("err = %v, want a WorkflowError", err)
	}
	if len(wf.Failed) != 1 || wf.Failed[0].Key != "b" || !slicesEqual(wf.Skipped, []string{"d", "f"}) {
		t.Fatalf("failed %+v, skipped %v", wf.Failed, wf.Skipped)
	}
	if !strings.Contains(err.Error(), "b (") || !strings.Contains(err.Error(), "skipped: d, f") {
		t.Errorf("message %q does not name the failed and skipped nodes", err)
	}
	var ae *helikon.AgentError
	if errors.As(err, &ae); ae.Kind != helikon.KindModel || ae.Agent != "g" {
		t.Errorf("aggregate = kind %s by %q, want the one failure's kind by the graph", ae.Kind, ae.Agent)
	}
	if len(dModel.Requests())+len(fModel.Requests()) != 0 {
		t.Error("a skipped node ran")
	}
	if rc.State().String("e") != "E" || rc.State().String("c") != "C" {
		t.Errorf("the independent branch did not finish: %v", rc.State().Snapshot())
	}
	if countEvents[helikon.RunFailed](res.Events) != 1 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
}

func TestGraph_NestsAsANodeAndInASequence(t *testing.T) {
	inner, _ := workflow.NewGraph("inner", workflow.Node("x", answerer(t, "x", "X")), workflow.Node("y", answerer(t, "y", "Y")))
	outer, _ := workflow.NewGraph("outer", workflow.Node("inner", inner), workflow.Node("end", answerer(t, "end", "done")), workflow.Edge("inner", "end"))
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(outer.Run(context.Background(), rc, nil))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("run: %v, %q", err, res.FinalOutput)
	}
	if rc.State().String("inner") != `{"x":"X","y":"Y"}` {
		t.Errorf("state[inner] = %q", rc.State().String("inner"))
	}
}

func TestGraph_BuildErrors(t *testing.T) {
	a, b, c := answerer(t, "a", "x"), answerer(t, "b", "x"), answerer(t, "c", "x")
	tests := []struct {
		name     string
		opts     []workflow.GraphOption
		want     error
		wantKeys []string
	}{
		{"empty", nil, workflow.ErrNoSubAgents, nil},
		{"duplicate node", []workflow.GraphOption{workflow.Node("a", a), workflow.Node("a", b)}, helikon.ErrDuplicateKey, []string{"a"}},
		{"unknown source", []workflow.GraphOption{workflow.Node("a", a), workflow.Edge("zz", "a")}, workflow.ErrUnknownKey, []string{"zz"}},
		{"unknown target", []workflow.GraphOption{workflow.Node("a", a), workflow.Edge("a", "zz")}, workflow.ErrUnknownKey, []string{"zz"}},
		{"nil agent", []workflow.GraphOption{workflow.Node("a", nil)}, helikon.ErrInvalidOption, []string{"a"}},
		{"self loop", []workflow.GraphOption{workflow.Node("a", a), workflow.Edge("a", "a")}, workflow.ErrCycle, []string{"a"}},
		{"three-cycle behind an entry", []workflow.GraphOption{
			workflow.Node("in", a), workflow.Node("b", b), workflow.Node("c", c), workflow.Node("d", answerer(t, "d", "x")),
			workflow.Edge("in", "b"), workflow.Edge("b", "c"), workflow.Edge("c", "d"), workflow.Edge("d", "b")},
			workflow.ErrCycle, []string{"b", "c", "d"}},
		{"an option wrapping a node", []workflow.GraphOption{wrappedNode{workflow.Node("a", a)}}, helikon.ErrInvalidOption, nil},
		// Past graphScan nodes a build finds them by a map: the same refusals.
		{"duplicate node in a large graph", append(wideNodes(t, 20), workflow.Node("n7", a)), helikon.ErrDuplicateKey, []string{"n7"}},
		{"unknown target in a large graph", append(wideNodes(t, 20), workflow.Edge("n3", "zz")), workflow.ErrUnknownKey, []string{"zz"}},
		{"cycle in a large graph", append(wideNodes(t, 20), workflow.Edge("n19", "n2"), workflow.Edge("n2", "n19")), workflow.ErrCycle, []string{"n2", "n19"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workflow.NewGraph("g", tt.opts...)
			var be *helikon.BuildError
			if !errors.Is(err, tt.want) || !errors.As(err, &be) {
				t.Fatalf("err = %v, want a BuildError matching %v", err, tt.want)
			}
			if tt.wantKeys != nil && !sameRotation(be.Keys, tt.wantKeys) {
				t.Errorf("keys = %v, want %v", be.Keys, tt.wantKeys)
			}
		})
	}
}

// wrappedNode is a user's type embedding a node option.
type wrappedNode struct{ workflow.NodeOption }

// wideNodes returns n unconnected nodes n0, n1, ...
func wideNodes(t *testing.T, n int) []workflow.GraphOption {
	opts := make([]workflow.GraphOption, n)
	for i := range opts {
		name := fmt.Sprint("n", i)
		opts[i] = workflow.Node(name, answerer(t, name, name))
	}
	return opts
}

func TestGraph_ALargeGraphRunsEveryNode(t *testing.T) {
	opts := wideNodes(t, 20)
	for i := 1; i < 20; i++ {
		opts = append(opts, workflow.Edge(fmt.Sprint("n", i-1), fmt.Sprint("n", i)))
	}
	g, err := workflow.NewGraph("g", opts...)
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext()
	res, err := helikon.Collect(g.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "n19" {
		t.Fatalf("run: %v, final %q", err, res.FinalOutput)
	}
	for i := range 20 {
		if k := fmt.Sprint("n", i); rc.State().String(k) != k {
			t.Errorf("state[%s] = %q", k, rc.State().String(k))
		}
	}
}

func TestGraph_BuildingADiamondAllocatesOnce(t *testing.T) {
	a := answerer(t, "a", "x")
	allocs := testing.AllocsPerRun(100, func() {
		_, err := diamond(a, a, a, a)
		if err != nil {
			t.Fatal(err)
		}
	})
	// The agent with its nodes and links: the options stay on the
	// caller's stack.
	if allocs != 1 {
		t.Errorf("a diamond's build allocates %v times, want 1", allocs)
	}
}

// sameRotation reports whether got is want, possibly starting elsewhere in
// the cycle.
func sameRotation(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for shift := range got {
		if fmt.Sprint(append(append([]string{}, got[shift:]...), got[:shift]...)) == fmt.Sprint(want) {
			return true
		}
	}
	return false
}

// The labels of a run share one array of bytes, which grows when a label
// does not fit the room the first ones reserved: here each node's output
// outgrows it, and every node still sees each predecessor's whole text.
func TestGraph_LabelsKeepTheirTextsAsTheirBytesGrow(t *testing.T) {
	texts := map[string]string{"a": strings.Repeat("a", 200), "b": strings.Repeat("b", 1000), "c": strings.Repeat("c", 3000), "d": "done"}
	models := map[string]*mock.Model{}
	opts := []workflow.GraphOption{
		workflow.Edge("a", "b"), workflow.Edge("a", "c"), workflow.Edge("b", "c"),
		workflow.Edge("a", "d"), workflow.Edge("b", "d"), workflow.Edge("c", "d"),
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		models[name] = mock.Scripted(mock.Text(texts[name]))
		opts = append(opts, workflow.Node(name, mustAgent(t, name, models[name])))
	}
	g, err := workflow.NewGraph("g", opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(g.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("run: %v, final %q", err, res.FinalOutput)
	}
	label := func(name string) string { return "Output of " + name + ":\n" + texts[name] }
	for name, want := range map[string][]string{
		"b": {"go", label("a")},
		"c": {"go", label("a"), label("b")},
		"d": {"go", label("a"), label("b"), label("c")},
	} {
		var got []string
		for _, it := range models[name].Requests()[0].Messages {
			got = append(got, it.Text())
		}
		if !slicesEqual(got, want) {
			t.Errorf("%s saw %.80q…, want %.80q…", name, got, want)
		}
	}
}

func TestGraph_ARepeatedEdgeHasNoFurtherEffect(t *testing.T) {
	bModel := mock.Scripted(mock.Text("B"))
	g, err := workflow.NewGraph("g",
		workflow.Node("a", answerer(t, "a", "A")), workflow.Node("b", mustAgent(t, "b", bModel)),
		workflow.Edge("a", "b"), workflow.Edge("a", "b"), workflow.Edge("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(g.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "B" {
		t.Fatalf("run: %v, final %q", err, res.FinalOutput)
	}
	var texts []string
	for _, it := range bModel.Requests()[0].Messages {
		texts = append(texts, it.Text())
	}
	if want := []string{"go", "Output of a:\nA"}; !slicesEqual(texts, want) {
		t.Errorf("b saw %q, want %q: one message per predecessor", texts, want)
	}
}

// A node that blocks on the consumer's goroutine holds the nodes ready
// beside it back for no longer than the hand-off delay, in every wave:
// here a waits for b, and then c, ready with d once both finished, waits
// for d.
func TestGraph_ABlockedNodeDoesNotHoldTheOthersInAnyWave(t *testing.T) {
	bDone, dDone := make(chan struct{}), make(chan struct{})
	waitFor := func(name string, ch chan struct{}) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			select {
			case <-ch:
				yield(helikon.RunCompleted{})
			case <-time.After(10 * time.Second):
				yield(helikon.RunFailed{Err: errors.New("the node it waits for never ran")})
			}
		})
	}
	signal := func(name string, ch chan struct{}) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			close(ch)
			yield(helikon.RunCompleted{})
		})
	}
	g, err := workflow.NewGraph("g",
		workflow.Node("a", waitFor("a", bDone)), workflow.Node("b", signal("b", bDone)),
		workflow.Node("c", waitFor("c", dDone)), workflow.Node("d", signal("d", dDone)),
		workflow.Edge("a", "c"), workflow.Edge("b", "c"), workflow.Edge("a", "d"), workflow.Edge("b", "d"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helikon.Collect(g.Run(context.Background(), nil, nil)); err != nil {
		t.Fatal(err)
	}
}

// Only the consuming goroutine starts nodes, so a node running there would
// hold back a node that becomes ready meanwhile: here a, ready beside b,
// waits until c, b's successor, has started, and must run on the pool; so
// too in a graph too large for the descendants' bits, padded with nodes
// on their own.
func TestGraph_ANodeOnTheConsumersGoroutineHoldsBackNoSuccessorOfAnother(t *testing.T) {
	for _, pad := range []int{0, 64} {
		cStarted := make(chan struct{})
		a := agentFunc("a", func(ctx context.Context, yield func(helikon.Event) bool) {
			select {
			case <-cStarted:
				yield(helikon.RunCompleted{})
			case <-time.After(10 * time.Second):
				yield(helikon.RunFailed{Err: errors.New("c never started while a ran")})
			}
		})
		b := agentFunc("b", func(ctx context.Context, yield func(helikon.Event) bool) { yield(helikon.RunCompleted{}) })
		c := agentFunc("c", func(ctx context.Context, yield func(helikon.Event) bool) {
			close(cStarted)
			yield(helikon.RunCompleted{})
		})
		opts := []workflow.GraphOption{workflow.Node("a", a), workflow.Node("b", b), workflow.Node("c", c), workflow.Edge("b", "c")}
		for k := range pad {
			opts = append(opts, workflow.Node(fmt.Sprint("pad", k), b))
		}
		g, err := workflow.NewGraph("g", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := helikon.Collect(g.Run(context.Background(), nil, nil)); err != nil {
			t.Errorf("%d nodes: %v", 3+pad, err)
		}
	}
}

// TestGraph_EndsWithTheSinksTextSharingItsContentWhenThatIsAllItSaid pins
// the graph's final message for a single sink: the sink's text alone, in
// the sink's own content when its last message was one text part (no
// second copy), in content of its own when that message held more.
func TestGraph_EndsWithTheSinksTextSharingItsContentWhenThatIsAllItSaid(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content []helikon.ContentPart
		shared  bool
	}{
		{"one text part", []helikon.ContentPart{helikon.TextPart{Text: "done"}}, true},
		{"text and an image", []helikon.ContentPart{helikon.TextPart{Text: "done"}, helikon.ImagePart{URL: "https://example.com/i.png"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := agentFunc("sink", func(_ context.Context, yield func(helikon.Event) bool) {
				_ = yield(helikon.MessageOutput{At: time.Now(), Item: helikon.Item{Role: helikon.RoleAssistant, Agent: "sink", Content: tc.content}}) &&
					yield(helikon.RunCompleted{At: time.Now(), Agent: "sink"})
			})
			g, err := workflow.NewGraph("g", workflow.Node("top", answerer(t, "top", "x")), workflow.Node("sink", sink), workflow.Edge("top", "sink"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := helikon.Collect(g.Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			last, ok := res.Events[len(res.Events)-2].(helikon.MessageOutput)
			if !ok || last.Item.Agent != "g" || res.FinalOutput != "done" {
				t.Fatalf("the graph ended with %#v, final output %q", res.Events[len(res.Events)-2], res.FinalOutput)
			}
			if len(last.Item.Content) != 1 || last.Item.Content[0] != (helikon.TextPart{Text: "done"}) {
				t.Fatalf("the graph's final content %v, want the text alone", last.Item.Content)
			}
			if shared := &last.Item.Content[0] == &tc.content[0]; shared != tc.shared {
				t.Errorf("the final message shares the sink's content: %v, want %v", shared, tc.shared)
			}
		})
	}
}

// diamondLayerAllocs is what one run of a diamond allocates beyond its
// nodes' runs (TestGraph_ADiamondRunAllocatesOnlyWhatItHandsOn).
const diamondLayerAllocs = 21

// TestGraph_ADiamondRunAllocatesOnlyWhatItHandsOn counts what one run of
// a diamond allocates beyond its nodes' runs (they replay a finished run)
// and its run context (made once, outside), consumed by a plain range:
// the build (1), the stream (1: it stamps its events itself, with no
// wrapper), the fan-in with the
// nodes' run slots and inputs (1), the yield it forwards through (1), the
// children's contexts and action handles (1), the labels' text (1, for
// all of them: the first reserves room for the others) and parts (3), the graph's own
// events (RunStarted, four AgentUpdated, the final message sharing the
// sink's content, RunCompleted: 7), the replaying nodes' streams (4) and
// the range's loop body, which the stream keeps (1).
func TestGraph_ADiamondRunAllocatesOnlyWhatItHandsOn(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop a share of what it is given (the fan-in's spread timers): counts vary; the run without -race checks them")
	}
	rc := helikon.NewRunContext()
	input := helikon.UserText("go")
	nodes := []*replayAgent{newReplayAgent("top"), newReplayAgent("left"), newReplayAgent("right"), newReplayAgent("bottom")}
	allocs := testing.AllocsPerRun(100, func() {
		g, err := diamond(nodes[0], nodes[1], nodes[2], nodes[3])
		if err != nil {
			t.Fatal(err)
		}
		for ev := range g.Run(context.Background(), rc, input) {
			if f, ok := ev.(helikon.RunFailed); ok {
				t.Fatal(f.Err)
			}
		}
	})
	if allocs != diamondLayerAllocs {
		t.Errorf("a diamond's run allocates %v times beyond its nodes' runs, want %d", allocs, diamondLayerAllocs)
	}
}

// TestGraph_AnLLMNodeCostsWhatItsFoldedRunDoes pins that a graph's LLM
// nodes settle their RunStarted and RunCompleted into their outcomes
// (helikon.RunContext.FoldInto): a diamond of LLM nodes allocates what
// the graph does beyond its nodes' runs (diamondLayerAllocs less the
// replaying nodes' 4 streams) and four runs on a folded child context, as
// helikon.RunInto makes them (no stream), nothing for events the graph
// would only swallow.
func TestGraph_AnLLMNodeCostsWhatItsFoldedRunDoes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop a share of what it is given (the fan-in's spread timers): counts vary; the run without -race checks them")
	}
	rc := helikon.NewRunContext()
	input := helikon.UserText("go")
	cs := rc.Children(1)
	var o helikon.ChildOutcome
	perNode := testing.AllocsPerRun(100, func() {
		a := answerer(t, "a", "x")
		o = helikon.ChildOutcome{}
		cs[0].FoldInto(a, &o)
		helikon.RunInto(context.Background(), a, &cs[0], input, func(helikon.Event) bool { return true })
		if !o.Finished || o.Err != nil {
			t.Fatalf("outcome %+v", o)
		}
	})
	graph := testing.AllocsPerRun(100, func() {
		g, err := diamond(answerer(t, "top", "x"), answerer(t, "left", "x"), answerer(t, "right", "x"), answerer(t, "bottom", "x"))
		if err != nil {
			t.Fatal(err)
		}
		for ev := range g.Run(context.Background(), rc, input) {
			if f, ok := ev.(helikon.RunFailed); ok {
				t.Fatal(f.Err)
			}
		}
	})
	if want := diamondLayerAllocs - 4 + 4*perNode; graph != want {
		t.Errorf("a diamond of LLM nodes allocates %v times, want %v (%d and 4 × %v)", graph, want, diamondLayerAllocs-4, perNode)
	}
}
