package callround

import (
	"fmt"
	"testing"
	"time"
)

func TestSpreader_RunsEveryCallOnceWithinTheBound(t *testing.T) {
	for _, tc := range []struct {
		n, bound int
		hold     time.Duration
	}{
		{0, 0, 0},
		{1, 0, 0},
		{5, 0, 0},
		{50, 0, 0},
		{6, 0, time.Millisecond},
		{6, 1, time.Millisecond},
		{6, 2, time.Millisecond},
		{6, 3, time.Millisecond},
	} {
		t.Run(fmt.Sprintf("n=%d,bound=%d,hold=%v", tc.n, tc.bound, tc.hold), func(t *testing.T) {
			var s Spreader
			// Three rounds on one Spreader, as a run's rounds share it.
			for range 3 {
				c := newCounted(tc.n, tc.hold)
				r := new(Inline)
				r.Init(tc.n, tc.bound, c)
				guard(t, "the round", func() { s.Run(r) })
				c.check(t, tc.bound)
			}
		})
	}
}

func TestSpreader_CallsThatWaitOnEachOtherGetWorkers(t *testing.T) {
	for _, bound := range []int{0, 2} {
		t.Run(fmt.Sprintf("bound=%d", bound), func(t *testing.T) {
			// Call 0 waits for call 1: the round ends only if a worker
			// takes call 1 while the driver's goroutine waits in call 0.
			released := make(chan struct{})
			r := new(Inline)
			r.Init(2, bound, runFunc(func(i int) {
				if i == 0 {
					<-released
				} else {
					close(released)
				}
			}))
			var s Spreader
			guard(t, "a round of calls that wait on each other", func() { s.Run(r) })
		})
	}
}
