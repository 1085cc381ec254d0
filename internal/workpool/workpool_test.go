package workpool

import (
	"runtime"
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

// TestSubmit_HandsAJobToAWorkerStillLooking pins the hand-over itself: a
// job submitted while a worker spins goes to that worker, which returns
// it to run next, rather than to a sleeping worker or a new one. The
// spinner gives up after spinFor, which a loaded machine may spend before
// the submit; so the test tries until one hand-over happens.
func TestSubmit_HandsAJobToAWorkerStillLooking(t *testing.T) {
	var n atomic.Int64
	spinners := func() int {
		pool.mu.Lock()
		defer pool.mu.Unlock()
		return pool.spinning
	}
	for try := 0; try < 1000; try++ {
		// Workers of other tests may still spin, and would take the job
		// (or leave this spin no room): wait until none does.
		for spinners() > 0 {
			runtime.Gosched()
		}
		got := make(chan Job, 1)
		go func() { got <- spin() }()
		for spinners() == 0 && len(got) == 0 {
			runtime.Gosched()
		}
		var wg sync.WaitGroup
		wg.Add(1)
		j := countJob{&n, &wg}
		Submit(j)
		if <-got == Job(j) {
			return
		}
		wg.Wait() // it went to another worker: let it run before trying again
	}
	t.Fatal("no submit in 1,000 went to the spinning worker")
}
