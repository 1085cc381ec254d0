// Package workpool is the process's pool of goroutines that run the
// core's jobs (a round of tool calls, a model stream) off a run's own
// goroutine, so that a run can stop waiting for one that ignores
// cancellation. Workers are kept warm between jobs: a worker that
// finished one looks for the next for a moment before it sleeps, and
// sleeps a while before it ends.
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

// spinLooks is how many looks a spinning worker takes between two looks
// at the clock.
const spinLooks = 8

// pool is the process's one pool. Its idle workers are its own: each ends
// once idle for idleFor. A worker running a job is accounted for by the
// job's submitter, which waits for it or, when it gives up on the job,
// counts it as a straggler.
var pool struct {
	once sync.Once
	jobs chan Job
	// mu guards spinning and handed. A job is handed to the spinning
	// workers only while they outnumber the jobs not yet taken, and a
	// worker stops spinning only with none left, so every one is taken.
	mu       sync.Mutex
	spinning int
	handed   []Job
	pending  atomic.Int32 // len(handed), polled by spinning workers
}

// Submit runs j on a worker: one still spinning, else a sleeping one, else
// a new one.
func Submit(j Job) {
	pool.once.Do(func() { pool.jobs = make(chan Job) })
	pool.mu.Lock()
	spun := pool.spinning > len(pool.handed)
	if spun {
		pool.handed = append(pool.handed, j)
		pool.pending.Store(int32(len(pool.handed)))
	}
	pool.mu.Unlock()
	if !spun {
		select {
		case pool.jobs <- j:
		default:
			go work(j)
		}
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

// spin looks for a handed job for up to spinFor, yielding its processor
// between looks, and returns it, or nil. At most half the processors'
// worth of workers spin: a busy process has no idle processor to spare.
func spin() Job {
	pool.mu.Lock()
	if pool.spinning >= max(runtime.GOMAXPROCS(0)/2, 1) {
		pool.mu.Unlock()
		return nil
	}
	pool.spinning++
	pool.mu.Unlock()
	for start, i := time.Now(), 1; ; i++ {
		timeUp := i%spinLooks == 0 && time.Since(start) >= spinFor
		if pool.pending.Load() > 0 || timeUp {
			var j Job
			pool.mu.Lock()
			if n := len(pool.handed); n > 0 {
				j = pool.handed[0]
				copy(pool.handed, pool.handed[1:])
				pool.handed[n-1] = nil
				pool.handed = pool.handed[:n-1]
				pool.pending.Store(int32(n - 1))
			}
			if j != nil || timeUp {
				pool.spinning--
				pool.mu.Unlock()
				return j
			}
			pool.mu.Unlock()
		}
		runtime.Gosched()
	}
}
