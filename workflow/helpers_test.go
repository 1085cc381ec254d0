package workflow_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slug"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/workflow"
)

// diamond builds the graph top → left, right → bottom over the four
// agents, the shape the graph's tests and benchmarks share.
func diamond(top, left, right, bottom helikon.Agent) (*workflow.GraphAgent, error) {
	return workflow.NewGraph("g",
		workflow.Node("top", top), workflow.Node("left", left),
		workflow.Node("right", right), workflow.Node("bottom", bottom),
		workflow.Edge("top", "left"), workflow.Edge("top", "right"),
		workflow.Edge("left", "bottom"), workflow.Edge("right", "bottom"))
}

// mustAgent builds an LLM agent or fails the test.
func mustAgent(t testing.TB, name string, m helikon.Model, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	a, err := helikon.NewAgent(name, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// answerer is an agent that answers text in one turn.
func answerer(t testing.TB, name, text string, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	return mustAgent(t, name, mock.Scripted(mock.Text(text)), opts...)
}

func typesOf(evs []helikon.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		var h struct{ Type string }
		_ = json.Unmarshal(b, &h)
		out = append(out, h.Type)
	}
	return out
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// transfer is a model turn that hands off to the agent named target.
func transfer(target string) mock.Script {
	return mock.ToolCalls(mock.Call{ID: "h_" + slug.Make(target), Name: "transfer_to_" + slug.Make(target), Args: `{}`})
}

// settleGoroutines waits for the goroutine count to fall back to base.
func settleGoroutines(t *testing.T, base int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	n := runtime.Stack(buf, true)
	t.Fatalf("goroutines: %d, want <= %d\n%s", runtime.NumGoroutine(), base, buf[:n])
}

// countEvents counts the events of type E.
func countEvents[E helikon.Event](evs []helikon.Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(E); ok {
			n++
		}
	}
	return n
}
