package helikon

import (
	"sync"
	"time"
)

// job is work a run hands to a worker goroutine: a tool call, a round's
// share of calls, a model stream. A job is a pointer to state the run
// already holds, so handing it over costs no allocation.
type job interface{ run() }

// workerIdle is how long a worker waits for its next job before it ends.
// Back-to-back runs (a busy server, a benchmark) find their workers warm,
// with stacks already grown by earlier calls; an idle process keeps none
// for long.
const workerIdle = 50 * time.Millisecond

// workers is the process's pool of goroutines that run jobs off a run's
// own goroutine. It owns its idle workers: each ends once idle for
// workerIdle. A worker running a job is accounted for by the run that
// handed it over, which waits for it, or, when it gives up on a call or
// a stream that ignores cancellation, by the straggler registry.
var workers workerPool

type workerPool struct {
	once sync.Once
	jobs chan job
}

func (p *workerPool) submit(j job) {
	p.once.Do(func() { p.jobs = make(chan job) })
	select {
	case p.jobs <- j:
	default:
		go p.work(j)
	}
}

func (p *workerPool) work(j job) {
	idle := time.NewTimer(workerIdle)
	for {
		j.run()
		idle.Reset(workerIdle)
		select {
		case j = <-p.jobs:
		case <-idle.C:
			return
		}
	}
}
