package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
)

type countJob struct {
	n  *atomic.Int64
	wg *sync.WaitGroup
}

func (j countJob) Run() { j.n.Add(1); j.wg.Done() }

// TestSubmit_EveryJobHandedToASpinningWorkerRuns pins the hand-over rule:
// a job given to the workers still looking (rather than to a sleeping one
// by channel) is taken before the last of them stops looking, however
// submissions and workers' time-outs interleave.
func TestSubmit_EveryJobHandedToASpinningWorkerRuns(t *testing.T) {
	var (
		n  atomic.Int64
		wg sync.WaitGroup
	)
	const submitters, each = 8, 500
	wg.Add(submitters * each)
	var subs sync.WaitGroup
	for range submitters {
		subs.Go(func() {
			for range each {
				Submit(countJob{&n, &wg})
			}
		})
	}
	subs.Wait()
	wg.Wait()
	if got := n.Load(); got != submitters*each {
		t.Fatalf("ran %d jobs, want %d", got, submitters*each)
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if len(pool.handed) != 0 {
		t.Fatalf("%d handed jobs left untaken", len(pool.handed))
	}
}
