package helikon_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// countingTool is a tool that counts its calls.
func countingTool(t *testing.T, calls *atomic.Int32) helikon.Tool {
	t.Helper()
	return helikon.MustTool("count", "", func(*helikon.ToolContext, struct{}) (string, error) {
		calls.Add(1)
		return "ok", nil
	})
}

// toolCalls is a model turn of n calls of the count tool.
func toolCalls(n int) mock.Script {
	calls := make([]mock.Call, n)
	for i := range calls {
		calls[i] = mock.Call{ID: fmt.Sprintf("c%d", i), Name: "count", Args: "{}"}
	}
	return mock.ToolCalls(calls...)
}

// contexts are the two ways a run reads its model: on its own goroutine,
// and, on a context that can be cancelled, one it may read on a worker.
var contexts = []struct {
	name string
	ctx  func(t *testing.T) context.Context
}{
	{"background", func(*testing.T) context.Context { return context.Background() }},
	{"cancellable", func(t *testing.T) context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return ctx
	}},
}

func TestTurnBounds_AResponseOfTooManyToolCallsFailsBeforeAnyRuns(t *testing.T) {
	for _, c := range contexts {
		for _, tc := range []struct {
			name  string
			limit int // RunConfig.MaxToolCallsPerTurn; 0 the default
			calls int
			fails bool
		}{
			{"default limit, one past it", 0, helikon.DefaultMaxToolCallsPerTurn + 1, true},
			{"default limit, at it", 0, helikon.DefaultMaxToolCallsPerTurn, false},
			{"limit of 2, 3 calls", 2, 3, true},
			{"limit of 2, 2 calls", 2, 2, false},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				var ran atomic.Int32
				a, err := helikon.NewAgent("caller", mock.Scripted(toolCalls(tc.calls), mock.Text("done")),
					helikon.WithTools(countingTool(t, &ran)),
					helikon.WithRunConfig(helikon.RunConfig{MaxToolCallsPerTurn: tc.limit}))
				if err != nil {
					t.Fatal(err)
				}
				res, err := helikon.Collect(a.Run(c.ctx(t), nil, helikon.UserText("go")))
				if !tc.fails {
					if err != nil || int(ran.Load()) != tc.calls {
						t.Fatalf("err %v, %d calls ran; want the run to answer after %d", err, ran.Load(), tc.calls)
					}
					return
				}
				var ae *helikon.AgentError
				if !errors.As(err, &ae) || ae.Kind != helikon.KindModel || !errors.Is(err, helikon.ErrTurnTooLarge) {
					t.Fatalf("err = %v, want a model failure matching ErrTurnTooLarge", err)
				}
				if !strings.Contains(err.Error(), "MaxToolCallsPerTurn") {
					t.Fatalf("err %q does not name the bound", err)
				}
				if n := ran.Load(); n != 0 {
					t.Fatalf("%d calls ran", n)
				}
				if n := len(eventsOf[helikon.ToolCallDelta](res)); n != tc.calls-1 {
					t.Fatalf("%d call deltas went out, want the %d within the bound", n, tc.calls-1)
				}
			})
		}
	}
}

func TestTurnBounds_AResponsePastMaxTurnBytesFails(t *testing.T) {
	// Each event counts delta against the limit: its bytes and the
	// event's own cost.
	const limit, delta, bytes = 1000, 100, 100 - helikon.ModelEventCost
	for _, c := range contexts {
		for _, tc := range []struct {
			name string
			ev   func(i int) helikon.ModelEvent
		}{
			{"text", func(int) helikon.ModelEvent { return helikon.TokenDelta{Text: strings.Repeat("t", bytes)} }},
			{"reasoning", func(int) helikon.ModelEvent { return helikon.ReasoningDelta{Text: strings.Repeat("r", bytes)} }},
			{"signatures", func(int) helikon.ModelEvent {
				return helikon.ReasoningDelta{Text: "r", Signature: strings.Repeat("s", bytes-1)}
			}},
			{"tool arguments", func(i int) helikon.ModelEvent {
				if i == 0 { // the call's ID counts once, with its first delta
					return helikon.ToolCallDelta{CallID: "c", ArgsDelta: strings.Repeat(" ", bytes-1)}
				}
				return helikon.ToolCallDelta{CallID: "c", ArgsDelta: strings.Repeat(" ", bytes)}
			}},
			{"tool names and IDs", func(i int) helikon.ModelEvent {
				id := fmt.Sprintf("%02d", i)
				return helikon.ToolCallDelta{CallID: id, Name: strings.Repeat("n", bytes-len(id))}
			}},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				evs := make([]helikon.ModelEvent, 0, 20)
				for i := range 20 {
					evs = append(evs, tc.ev(i))
				}
				var ran atomic.Int32
				a, err := helikon.NewAgent("talker", mock.Scripted(mock.Events(evs...), mock.Text("done")),
					helikon.WithTools(countingTool(t, &ran)),
					helikon.WithRunConfig(helikon.RunConfig{MaxTurnBytes: limit}))
				if err != nil {
					t.Fatal(err)
				}
				res, err := helikon.Collect(a.Run(c.ctx(t), nil, helikon.UserText("go")))
				if !errors.Is(err, helikon.ErrTurnTooLarge) || !strings.Contains(err.Error(), "MaxTurnBytes") {
					t.Fatalf("err = %v, want ErrTurnTooLarge naming MaxTurnBytes", err)
				}
				// Ten deltas fill the bound; the eleventh goes past it
				// and is not passed on.
				var deltas int
				for _, ev := range res.Events {
					switch ev.(type) {
					case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
						deltas++
					}
				}
				if deltas != limit/delta {
					t.Fatalf("%d deltas went out, want %d", deltas, limit/delta)
				}
				if ran.Load() != 0 {
					t.Fatal("the call ran")
				}
			})
		}
	}
}

// endlessModel streams ev until its consumer stops. It does not report
// HonoursCancellation, so that a run on a cancellable context reads it on
// a worker.
type endlessModel struct {
	ev       helikon.ModelEvent
	streamed atomic.Int64 // events
}

func (m *endlessModel) Invoke(ctx context.Context, _ *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		for ctx.Err() == nil {
			m.streamed.Add(1)
			if !yield(m.ev, nil) {
				return
			}
		}
	}
}

func (m *endlessModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true}
}

// maxAhead is more events than a worker reads ahead of the run.
const maxAhead = 1024

func TestTurnBounds_AResponseThatNeverEndsEndsTheRunAtTheDefaultBound(t *testing.T) {
	chunk := strings.Repeat("x", 64<<10)
	for _, c := range contexts {
		t.Run(c.name, func(t *testing.T) {
			m := &endlessModel{ev: helikon.TokenDelta{Text: chunk}}
			a, err := helikon.NewAgent("endless", m)
			if err != nil {
				t.Fatal(err)
			}
			var deltas int
			var failed error
			for ev := range a.Run(c.ctx(t), nil, helikon.UserText("go")) {
				switch e := ev.(type) {
				case helikon.TokenDelta:
					deltas++
				case helikon.RunFailed:
					failed = e.Err
				}
			}
			if !errors.Is(failed, helikon.ErrTurnTooLarge) {
				t.Fatalf("the run ended with %v, want ErrTurnTooLarge", failed)
			}
			if want := helikon.DefaultMaxTurnBytes / (len(chunk) + helikon.ModelEventCost); deltas != want {
				t.Fatalf("%d deltas went out, want %d", deltas, want)
			}
			// The model was stopped at the bound, not read to an end (a
			// worker reads a few deltas ahead).
			if n := m.streamed.Load(); n > int64(deltas+maxAhead) {
				t.Fatalf("the model streamed %d deltas, %d past the bound", n, int(n)-deltas)
			}
		})
	}
}

// A response of events that carry nothing (or nothing the run keeps, as a
// provider's repeated usage report) must end too: the consumer may keep
// every delta, and a run on a context without a deadline would spin for
// ever on the rest.
func TestTurnBounds_AnEndlessResponseOfEmptyEventsEnds(t *testing.T) {
	const limit = 32 << 10
	for _, c := range contexts {
		for _, ev := range []helikon.ModelEvent{
			helikon.TokenDelta{}, helikon.ReasoningDelta{}, helikon.ToolCallDelta{CallID: "c"},
			helikon.Usage{}, helikon.ResponseInfo{}, helikon.Finish{},
		} {
			t.Run(fmt.Sprintf("%s/%T", c.name, ev), func(t *testing.T) {
				m := &endlessModel{ev: ev}
				a, err := helikon.NewAgent("empty", m, helikon.WithRunConfig(helikon.RunConfig{MaxTurnBytes: limit}))
				if err != nil {
					t.Fatal(err)
				}
				_, err = helikon.Collect(a.Run(c.ctx(t), nil, helikon.UserText("go")))
				if !errors.Is(err, helikon.ErrTurnTooLarge) {
					t.Fatalf("err = %v, want ErrTurnTooLarge", err)
				}
				if n := m.streamed.Load(); n > limit/helikon.ModelEventCost+maxAhead {
					t.Fatalf("the model streamed %d events", n)
				}
			})
		}
	}
}
