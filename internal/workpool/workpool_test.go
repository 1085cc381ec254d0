package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type countJob struct {
	n  *atomic.Int64
	wg *sync.WaitGroup
}

func (j countJob) Run() { j.n.Add(1); j.wg.Done() }

// spinning counts the workers waiting in a slot.
func spinning() int {
	n := 0
	for i := range pool.slots {
		if pool.slots[i].state.Load() == slotWaiting {
			n++
		}
	}
	return n
}

// TestSubmit_EveryJobHandedToASpinningWorkerRuns pins the hand-over rule:
// a job put in a spinning worker's slot (rather than given to a sleeping
// one by channel) is taken, however submissions and workers' time-outs
// interleave, and no slot is left holding one.
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
	for i := range pool.slots {
		if st := pool.slots[i].state.Load(); st == slotClaimed || st == slotReady {
			t.Fatalf("slot %d left in state %d with its job untaken", i, st)
		}
	}
}

// TestSubmit_HandsAJobToAWorkerStillLooking pins the hand-over itself: a
// job submitted while a worker spins goes to that worker, which returns
// it to run next, rather than to a sleeping worker or a new one. The
// spinner gives up after spinFor, which a loaded machine may spend before
// the submit; so the test tries until one hand-over happens.
func TestSubmit_HandsAJobToAWorkerStillLooking(t *testing.T) {
	var n atomic.Int64
	for try := 0; try < 1000; try++ {
		// Workers of other tests may still spin, and would take the job
		// (or leave this spin no slot): wait until none does.
		for spinning() > 0 {
			runtime.Gosched()
		}
		got := make(chan Job, 1)
		go func() { got <- spin() }()
		for spinning() == 0 && len(got) == 0 {
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

// TestSpin_AWorkerGivingUpTakesTheJobOfASubmitterThatClaimedItsSlot pins
// the race at the end of a spin: a submitter that claimed the slot (and
// is about to put its job there) when the worker's time is up still has
// its job taken by that worker, which waits for it rather than leave it
// in a slot nobody looks at.
func TestSpin_AWorkerGivingUpTakesTheJobOfASubmitterThatClaimedItsSlot(t *testing.T) {
	for spinning() > 0 {
		runtime.Gosched()
	}
	got := make(chan Job, 1)
	go func() { got <- spin() }()
	var s *slot
	for s == nil {
		select {
		case j := <-got:
			// The worker gave up (or found no slot) before this loop
			// claimed its slot, as a loaded machine (the race detector)
			// lets it: nothing was submitted, so it has no job; spin
			// another.
			if j != nil {
				t.Fatalf("a spin with nothing submitted returned %v", j)
			}
			go func() { got <- spin() }()
		default:
		}
		for i := range pool.slots {
			if pool.slots[i].state.CompareAndSwap(slotWaiting, slotClaimed) {
				s = &pool.slots[i]
				break
			}
		}
		runtime.Gosched()
	}
	// The submitter is held up between its claim and its job for well
	// past the worker's spinFor.
	time.Sleep(50 * spinFor)
	select {
	case j := <-got:
		t.Fatalf("the worker gave up on a claimed slot and returned %v", j)
	default:
	}
	var (
		n  atomic.Int64
		wg sync.WaitGroup
	)
	wg.Add(1)
	j := countJob{&n, &wg}
	s.job = j
	s.state.Store(slotReady)
	if w := <-got; w != Job(j) {
		t.Fatalf("the worker returned %v, want the claimed slot's job", w)
	}
	if st := s.state.Load(); st != slotFree {
		t.Fatalf("slot left in state %d, want free", st)
	}
}

// TestProcs_FollowsGOMAXPROCSAfterAJob pins that the GOMAXPROCS a waiting
// run reads (Procs) is the real one as of a worker's last job, not the
// one the process started with.
func TestProcs_FollowsGOMAXPROCSAfterAJob(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	want := prev + 3
	runtime.GOMAXPROCS(want)
	var (
		n  atomic.Int64
		wg sync.WaitGroup
	)
	wg.Add(1)
	Submit(countJob{&n, &wg})
	wg.Wait()
	// The worker reads GOMAXPROCS once its job returned.
	for deadline := time.Now().Add(10 * time.Second); Procs() != want && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	if got := Procs(); got != want {
		t.Fatalf("Procs() = %d after a job at GOMAXPROCS %d", got, want)
	}
}
