package callround

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/straggler"
)

// awaitLive waits for r's end as the driver does: without sleeping first,
// then asleep on its end, forwarding its events to got.
func awaitLive(r *Live[int], got *[]int) {
	forward := func(ev int) { *got = append(*got, ev) }
	var start time.Time
	if r.Await(nil, &start, forward) {
		return
	}
	events, over, sleeps := r.Sleep()
	for sleeps {
		select {
		case ev := <-events:
			forward(ev)
		case <-over:
			return
		}
	}
}

func TestLive_RunsEveryCallOnceWithinTheBoundRoundAfterRound(t *testing.T) {
	for _, tc := range []struct {
		n, bound int
		hold     time.Duration
		spread   bool
	}{
		{0, 0, 0, false},
		{1, 0, 0, false},
		{5, 0, 0, false},
		{6, 0, time.Millisecond, true},
		{6, 1, time.Millisecond, true},
		{6, 2, time.Millisecond, true},
		{6, 4, time.Millisecond, true},
	} {
		t.Run(fmt.Sprintf("n=%d,bound=%d,spread=%v", tc.n, tc.bound, tc.spread), func(t *testing.T) {
			var r Live[int]
			// One Live for several rounds, as a run keeps its live round:
			// each round must end on its own calls' end.
			for range 5 {
				c := newCounted(tc.n, tc.hold)
				r.Start(tc.n, tc.bound, c)
				r.Submit()
				if tc.spread {
					r.Spread()
					r.Spread() // a second spread adds none past the bound
				}
				guard(t, "the round", func() { awaitLive(&r, new([]int)) })
				c.check(t, tc.bound)
			}
		})
	}
}

func TestLive_ForwardsTheCallsEventsBeforeItEnds(t *testing.T) {
	const n = 4
	var r Live[int]
	var mu sync.Mutex
	r.Start(n, 0, runFunc(func(i int) {
		mu.Lock() // one sender at a time, as a call's outcome sends
		defer mu.Unlock()
		select {
		case r.Events() <- i:
		case <-r.Gone():
		}
	}))
	r.Submit()
	r.Spread()
	var got []int
	guard(t, "the round", func() { awaitLive(&r, &got) })
	if len(got) != n {
		t.Errorf("the driver got %d events before the round ended, %v; want %d", len(got), got, n)
	}
}

func TestLive_AbandonLeavesRunningCallsToTheStragglersAndStartsNoMore(t *testing.T) {
	var r Live[int]
	release := make(chan struct{})
	var ran [3]atomic.Int32
	started := make(chan struct{})
	r.Start(len(ran), 1, runFunc(func(i int) {
		ran[i].Add(1)
		if i == 0 {
			close(started)
			<-release
		}
	}))
	r.Submit()
	<-started
	before := straggler.Count()
	if n := r.Abandon(); n != 1 {
		t.Errorf("Abandon reported %d calls running; want 1", n)
	}
	select {
	case <-r.Gone():
	default:
		t.Errorf("Gone is not closed after Abandon")
	}
	if got := straggler.Count() - before; got != 1 {
		t.Errorf("Abandon counted %d stragglers; want 1", got)
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := straggler.Wait(ctx); err != nil {
		t.Fatalf("the abandoned call was not counted as returned: %v", err)
	}
	r.Spread() // adds no worker to a round given up on
	for i := 1; i < len(ran); i++ {
		if n := ran[i].Load(); n != 0 {
			t.Errorf("call %d ran after the round was abandoned", i)
		}
	}
}
