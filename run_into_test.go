package helikon_test

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// listAgent is an agent of the caller's own kind (not an LLMAgent): it
// sends its events and counts those sent after a refusal.
type listAgent struct {
	evs       []helikon.Event
	afterStop int
}

func (a *listAgent) Name() string        { return "list" }
func (a *listAgent) Description() string { return "" }
func (a *listAgent) Run(context.Context, *helikon.RunContext, []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		for _, ev := range a.evs {
			if !yield(ev) {
				return
			}
		}
	}
}

func newListAgent() *listAgent {
	return &listAgent{evs: []helikon.Event{
		helikon.RunStarted{Agent: "list"},
		helikon.MessageOutput{Item: helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "hi"}}}},
		helikon.RunCompleted{Agent: "list"},
	}}
}

// kinds lists the events' types in order: what a stream says, without
// the times, which differ between two runs.
func kinds(evs []helikon.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = fmt.Sprintf("%T", ev)
	}
	return out
}

// TestRunInto_SendsWhatRangingOverRunSends pins RunInto to Run: the same
// events in the same order, for an LLM agent (the path without an
// iterator) and for an agent of another kind.
func TestRunInto_SendsWhatRangingOverRunSends(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent func() helikon.Agent
	}{
		{"LLMAgent", func() helikon.Agent { return mustAgent(t, "solo", mock.Scripted(mock.Text("hello"))) }},
		{"another kind", func() helikon.Agent { return newListAgent() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, input := context.Background(), helikon.UserText("go")
			want := slices.Collect(tc.agent().Run(ctx, nil, input))
			var got []helikon.Event
			helikon.RunInto(ctx, tc.agent(), nil, input, func(ev helikon.Event) bool {
				got = append(got, ev)
				return true
			})
			if !slices.Equal(kinds(got), kinds(want)) {
				t.Fatalf("RunInto sent %v, ranging over Run %v", kinds(got), kinds(want))
			}
			if m, ok := got[len(got)-2].(helikon.MessageOutput); !ok || m.Item.Text() != want[len(want)-2].(helikon.MessageOutput).Item.Text() {
				t.Errorf("RunInto's message %v, Run's %v", got[len(got)-2], want[len(want)-2])
			}
		})
	}
}

// TestRunInto_StopsAtTheFirstRefusal pins the consumer's stop: once yield
// returns false, no event reaches it again.
func TestRunInto_StopsAtTheFirstRefusal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent helikon.Agent
	}{
		{"LLMAgent", mustAgent(t, "solo", mock.Scripted(mock.Text("hello")))},
		{"another kind", newListAgent()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			helikon.RunInto(context.Background(), tc.agent, nil, helikon.UserText("go"), func(helikon.Event) bool {
				calls++
				return false
			})
			if calls != 1 {
				t.Errorf("yield called %d times after refusing the first event, want 1", calls)
			}
		})
	}
}

// TestRunInto_MakesNoIteratorForAnLLMAgent pins what RunInto saves: an
// LLM agent's run through it allocates one object fewer than calling the
// iterator Run returns, the iterator. (A range loop over Run costs one
// more, its body's closure.)
func TestRunInto_MakesNoIteratorForAnLLMAgent(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under -race (sync.Pool drops what it is given); CI also runs this test without it")
	}
	ctx, input := context.Background(), helikon.UserText("go")
	discard := func(helikon.Event) bool { return true }
	// Each run gets a fresh agent: a scripted model plays its script once.
	// Building one costs both sides alike.
	// A parent holds its children as Agents: Run's iterator then escapes.
	viaRun := testing.AllocsPerRun(200, func() {
		opaque(mustAgent(t, "solo", mock.Scripted(mock.Text("hello")))).Run(ctx, nil, input)(discard)
	})
	viaInto := testing.AllocsPerRun(200, func() {
		helikon.RunInto(ctx, opaque(mustAgent(t, "solo", mock.Scripted(mock.Text("hello")))), nil, input, discard)
	})
	if viaInto != viaRun-1 {
		t.Errorf("RunInto allocates %v a run, calling Run's iterator %v; want one fewer", viaInto, viaRun)
	}
}

// opaque hides a's type from the compiler, as a parent's list of agents
// does: a call of its Run cannot be inlined.
//
//go:noinline
func opaque(a helikon.Agent) helikon.Agent { return a }
