// Package workpool is the process's pool of goroutines that run the
// core's jobs (a round of tool calls, a model stream) off a run's own
// goroutine, so that a run can stop waiting for one that ignores
// cancellation. Workers are kept warm between jobs: a worker that
// finished one looks for the next for a moment before it sleeps, and
// sleeps a while before it ends.
//
// A job goes to a worker spinning on another processor, not to one
// parked on the submitter's own, although the data a round of tool calls
// touches then crosses between processors. The obvious alternative, a
// channel send to a parked worker (the runtime readies it on the
// sender's processor) while the submitter sleeps on the job's end, loses
// on a virtual machine: each readying wakes an idle processor's thread
// when no thread spins, and in a runtime trace of a cancellable S1 run
// (2026-12-06) that wake-up kept the submitter for about 10 µs. With a
// spinning worker elsewhere keeping every processor busy, so that no
// thread is woken, the same-processor hand-off still measured 1.37–1.55×
// a background run (`BenchmarkCancellableVsBackground/S1`, the two
// designs alternated under `chrt`) against 1.28–1.37× for this pool while
// the machine crossed processors quickly and about 1.5× against 1.6×
// while it did not: it trades the crossing for two trips through the
// scheduler, and is not kept.
package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Job is work handed to a worker. A job is a pointer to state its
// submitter already holds, so handing it over costs no allocation.
type Job interface{ Run() }

// idleFor is how long a worker sleeps waiting for its next job before it
// ends. Back-to-back runs (a busy server, a benchmark) find their workers
// warm, with stacks already grown by earlier jobs; an idle process keeps
// none for long.
const idleFor = 50 * time.Millisecond

// spinFor is how long a worker that finished a job looks for the next one
// before it sleeps. Waking a sleeping worker costs the submitter a system
// call and the worker a thread switch, several microseconds on a virtual
// machine: most of what handing a quick job over costs. Jobs come this
// close together only when runs do (a busy server), so an idle process
// spends at most this much of one processor after its last job.
const spinFor = 50 * time.Microsecond

// Looks is how many times a goroutine waiting without sleeping (a
// spinning worker, a run waiting for its round) looks at what it waits
// for between two yields of its processor. A look is a load that stays in
// the looker's cache until the other side writes the line, so it costs
// that side nothing; a yield passes the scheduler's global lock and
// queue, which the other side's yields take too, and reads the clock. A
// few dozen looks take less time than one yield, so the wait notices a
// hand-off sooner and yields less often, and still yields within a
// fraction of a microsecond, so a goroutine queued on its processor is
// hardly held up.
const Looks = 64

// spinLooks is how many yields a spinning worker takes between two looks
// at the clock.
const spinLooks = 8

// maxSpinners bounds the workers that spin at once (and sizes slots);
// at most half the processors' worth do, fewer on a big machine.
const maxSpinners = 64

// The states of a slot: free (no worker), waiting (a worker spins on
// it), claimed (a submitter is putting its job there), ready (the job is
// there for the worker).
const (
	slotFree int32 = iota
	slotWaiting
	slotClaimed
	slotReady
)

// slot is where a spinning worker waits for a job: the hand-over is two
// stores and a compare-and-swap on one cache line of the worker's, with
// no lock and no channel, so the worker sees the job as soon as the line
// reaches it.
type slot struct {
	state atomic.Int32
	job   Job
	_     [64 - 4 - 16 - 4]byte // a line each: a spinner's looks stay in its cache
}

// pool is the process's one pool. Its idle workers are its own: each ends
// once idle for idleFor. A worker running a job is accounted for by the
// job's submitter, which waits for it or, when it gives up on the job,
// counts it as a straggler.
var pool struct {
	once sync.Once
	jobs chan Job
	// slots are the spinning workers', used bounds the slots ever
	// waited on, so a submitter looks at those only.
	slots [maxSpinners]slot
	used  atomic.Int32
}

// Submit runs j on a worker: one still spinning, else a sleeping one, else
// a new one.
func Submit(j Job) {
	for i := range int(pool.used.Load()) {
		s := &pool.slots[i]
		if s.state.Load() == slotWaiting && s.state.CompareAndSwap(slotWaiting, slotClaimed) {
			s.job = j
			s.state.Store(slotReady)
			return
		}
	}
	pool.once.Do(func() { pool.jobs = make(chan Job) })
	select {
	case pool.jobs <- j:
	default:
		go work(j)
	}
}

func work(j Job) {
	idle := time.NewTimer(idleFor)
	for {
		j.Run()
		if j = spin(); j != nil {
			continue
		}
		idle.Reset(idleFor)
		select {
		case j = <-pool.jobs:
		case <-idle.C:
			return
		}
	}
}

// spin waits in a free slot for a job for up to spinFor, yielding its
// processor every Looks looks, and returns the job, or nil. At most half
// the processors' worth of workers spin: a busy process has no idle
// processor to spare.
func spin() Job {
	s := claimSlot()
	if s == nil {
		return nil
	}
	// The clock is read first after spinLooks yields: a job that comes
	// sooner (most, when jobs come this close together) costs no read,
	// which on a virtual machine takes longer than a yield.
	var start time.Time
	for i := 1; ; i++ {
		for range Looks {
			if s.state.Load() == slotReady {
				return take(s)
			}
		}
		if i == spinLooks {
			start = time.Now()
		} else if i%spinLooks == 0 && time.Since(start) >= spinFor {
			if s.state.CompareAndSwap(slotWaiting, slotFree) {
				return nil
			}
			// A submitter claimed the slot: its job comes in a moment.
			for s.state.Load() != slotReady {
				runtime.Gosched()
			}
			return take(s)
		}
		runtime.Gosched()
	}
}

// claimSlot returns a free slot among the first max(GOMAXPROCS/2, 1),
// now waiting, or nil.
func claimSlot() *slot {
	n := min(max(refreshProcs()/2, 1), maxSpinners)
	for i := range n {
		s := &pool.slots[i]
		if s.state.Load() == slotFree && s.state.CompareAndSwap(slotFree, slotWaiting) {
			for u := pool.used.Load(); u <= int32(i) && !pool.used.CompareAndSwap(u, int32(i+1)); u = pool.used.Load() {
			}
			return s
		}
	}
	return nil
}

// take returns the job in a ready slot and frees it.
func take(s *slot) Job {
	j := s.job
	s.job = nil
	s.state.Store(slotFree)
	return j
}

// procs is runtime.GOMAXPROCS(0) as a worker last read it (0 before any
// did); see Procs.
var procs atomic.Int32

// Procs returns runtime.GOMAXPROCS(0) as a worker read it after its last
// job. runtime.GOMAXPROCS takes the scheduler's lock, which each yield of
// a spinning goroutine takes too, so a run that is about to wait for a
// worker reads this instead; a worker reads the real one after each job,
// off the path of any run.
func Procs() int {
	if n := procs.Load(); n > 0 {
		return int(n)
	}
	return refreshProcs()
}

func refreshProcs() int {
	n := runtime.GOMAXPROCS(0)
	if procs.Load() != int32(n) {
		// Stored only when it changed: the line stays in the cache of
		// every processor that reads it.
		procs.Store(int32(n))
	}
	return n
}
