package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/workflow"
)

// A node that becomes ready alone, with no other node running, runs on the
// consumer's goroutine. These tests pin that path's duties: the ones a
// node on a goroutine of its own has.

// chain returns the graph first → second.
func chain(t *testing.T, first, second helikon.Agent) *workflow.GraphAgent {
	t.Helper()
	g, err := workflow.NewGraph("g", workflow.Node("first", first), workflow.Node("second", second), workflow.Edge("first", "second"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGraph_ALoneNodeThatPanicsFailsAloneAndSkipsItsDescendants(t *testing.T) {
	var secondRan atomic.Bool
	g := chain(t,
		agentFunc("bad", func(context.Context, func(helikon.Event) bool) { panic("kaboom") }),
		agentFunc("after", func(_ context.Context, yield func(helikon.Event) bool) {
			secondRan.Store(true)
			yield(helikon.RunCompleted{})
		}))
	res, err := helikon.Collect(g.Run(context.Background(), nil, nil))
	var wf *workflow.WorkflowError
	if !errors.As(err, &wf) || len(wf.Failed) != 1 || wf.Failed[0].Key != "first" || !slicesEqual(wf.Skipped, []string{"second"}) {
		t.Fatalf("err = %v, want first failed and second skipped", err)
	}
	if !errors.Is(err, wf.Failed[0].Err) || !containsAll(wf.Failed[0].Err.Error(), "panic", "kaboom") {
		t.Errorf("failure = %v, want the panic named", wf.Failed[0].Err)
	}
	if secondRan.Load() {
		t.Error("the descendant of the panicking node ran")
	}
	if _, last := res.Events[len(res.Events)-1].(helikon.RunFailed); !last {
		t.Errorf("events = %v, want RunFailed last", typesOf(res.Events))
	}
}

func TestGraph_TheConsumersPanicWhileALoneNodeRunsReachesTheConsumer(t *testing.T) {
	var stoppedAt atomic.Int64
	g := chain(t,
		agentFunc("ticker", func(_ context.Context, yield func(helikon.Event) bool) {
			for i := range 100 {
				if !yield(helikon.AgentUpdated{Agent: fmt.Sprint("tick", i)}) {
					stoppedAt.Store(int64(i))
					return
				}
			}
			yield(helikon.RunCompleted{})
		}),
		answerer(t, "second", "never"))
	type consumerPanic struct{}
	got := func() (r any) {
		defer func() { r = recover() }()
		for ev := range g.Run(context.Background(), nil, nil) {
			if u, ok := ev.(helikon.AgentUpdated); ok && u.Agent == "tick3" {
				panic(consumerPanic{})
			}
		}
		return nil
	}()
	if _, ok := got.(consumerPanic); !ok {
		t.Fatalf("recovered %v (%T), want the consumer's own panic value", got, got)
	}
}

func TestGraph_BreakingOutOfALoneNodeStopsItAtItsNextEvent(t *testing.T) {
	base := runtime.NumGoroutine()
	const events = 10_000
	var sent atomic.Int64
	var stopped atomic.Bool
	g := chain(t,
		agentFunc("ticker", func(_ context.Context, yield func(helikon.Event) bool) {
			for range events {
				sent.Add(1)
				if !yield(helikon.AgentUpdated{Agent: "tick"}) {
					stopped.Store(true)
					return
				}
			}
			yield(helikon.RunCompleted{})
		}),
		answerer(t, "second", "never"))
	seen := 0
	for range g.Run(context.Background(), nil, nil) {
		if seen++; seen == 5 {
			break
		}
	}
	// RunStarted and the node's AgentUpdated, then three ticks: the third,
	// the fifth event, is the one refused, and the node sends no other.
	if !stopped.Load() || sent.Load() != 3 {
		t.Errorf("the node sent %d ticks and stopped=%v, want it stopped at the 3rd", sent.Load(), stopped.Load())
	}
	settleGoroutines(t, base)
}

func TestGraph_CancellingTheRunStopsALoneNode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	g := chain(t,
		agentFunc("waiter", func(ctx context.Context, yield func(helikon.Event) bool) {
			close(started)
			select {
			case <-ctx.Done():
				yield(helikon.RunFailed{Err: ctx.Err()})
			case <-time.After(10 * time.Second):
				yield(helikon.RunCompleted{})
			}
		}),
		answerer(t, "second", "never"))
	go func() { <-started; cancel() }()
	_, err := helikon.Collect(g.Run(ctx, nil, nil))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a cancelled run", err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
