package helikon_test

import (
	"iter"
	"testing"

	"github.com/paigasus/helikon"
)

// hintedRun streams a RunStarted saying it expects hint events, then n-1
// more.
func hintedRun(hint, n int) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if !yield(helikon.RunStarted{Agent: "a", Events: hint}) {
			return
		}
		for range n - 2 {
			if !yield(helikon.TurnStarted{Agent: "a", Turn: 1}) {
				return
			}
		}
		yield(helikon.RunCompleted{Agent: "a"})
	}
}

func TestCollect_SizesItsEventsByTheRunStartedHint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hint, n int
		wantCap int // 0: whatever growing by appends gives
	}{
		{name: "a hint as large as the run keeps them in one array", hint: 23, n: 23, wantCap: 23},
		{name: "a hint short of the run grows from it", hint: 5, n: 7, wantCap: 10},
		{name: "a hostile hint reserves no more than the bound", hint: 1 << 30, n: 3, wantCap: 1024},
		{name: "no hint grows as ever", hint: 0, n: 23, wantCap: 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := helikon.Collect(hintedRun(tc.hint, tc.n))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) != tc.n || cap(res.Events) != tc.wantCap {
				t.Errorf("%d events in room for %d, want %d in %d", len(res.Events), cap(res.Events), tc.n, tc.wantCap)
			}
		})
	}
}
