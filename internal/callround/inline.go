package callround

import (
	"sync"
	"sync/atomic"

	"github.com/paigasus/helikon/internal/spreadtimer"
	"github.com/paigasus/helikon/internal/workpool"
)

// Inline is a round of calls that run inline, on the driver's goroutine.
// The driver's goroutine takes the calls one by one; if the round is still
// running after [HandoffDelay], workers join in and take the calls nobody
// has started, at most bound at a time with the driver. Either way the
// driver waits for every call. The driver readies it with [Inline.Init]
// and runs it with [Spreader.Run].
type Inline struct {
	run   Runner
	n     int
	bound int
	// next is the index of the first call nobody has taken, left the
	// number of calls not finished.
	next atomic.Int32
	left atomic.Int32

	mu sync.Mutex
	// closed is set once the driver ran out of calls: no worker joins
	// after it. done gets a token from the worker that finishes the
	// round's last call, when the driver did not.
	closed bool
	done   chan struct{}
}

// Init readies the round of n calls that run runs, with at most bound
// running at once (0: no bound).
func (r *Inline) Init(n, bound int, run Runner) {
	r.n, r.bound, r.run = n, bound, run
}

// take runs calls of the round until none is left to take; worker is set
// on a worker's goroutine.
func (r *Inline) take(worker bool) {
	for {
		i := int(r.next.Add(1)) - 1
		if i >= r.n {
			return
		}
		r.run.RunCall(i)
		if r.left.Add(-1) == 0 && worker {
			r.done <- struct{}{}
		}
	}
}

// Run is a worker's share of the round: the calls nobody has taken when
// it gets to run, which may be none.
func (r *Inline) Run() { r.take(true) }

func (r *Inline) spread() {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n - int(r.next.Load())
	if r.bound > 0 {
		n = min(n, r.bound-1) // the driver runs one
	}
	if r.closed || n <= 0 {
		return
	}
	if r.done == nil {
		r.done = make(chan struct{}, 1)
	}
	for range n {
		workpool.Submit(r)
	}
}

// Spreader runs a run's inline rounds, one after another, and spreads the
// round under way to workers once it is [HandoffDelay] old. Its zero value
// is ready. Its timer comes from a pool at the first round and goes back
// at [Spreader.Release], when the run ends, still running: rounds that follow
// each other within the delay, in one run or the next, arm it without
// resetting the runtime timer (see spreadtimer).
type Spreader struct {
	timer *spreadtimer.Timer
	round atomic.Pointer[Inline]
}

// timers holds the spread timers of the runs that have none.
var timers = sync.Pool{New: func() any {
	t := new(spreadtimer.Timer)
	t.Init(HandoffDelay, nil)
	return t
}}

// Run runs the round r and returns once every call of it has finished.
func (s *Spreader) Run(r *Inline) {
	// The round is published before the timer is armed: a timer firing
	// first (HandoffDelay is short, a loaded machine slow) would find no
	// round, and calls that wait on each other would wait for ever.
	r.left.Store(int32(r.n))
	s.round.Store(r)
	if s.timer == nil {
		s.timer = timers.Get().(*spreadtimer.Timer)
		s.timer.SetTarget(s)
	}
	s.timer.Arm()
	r.take(false)
	s.timer.Disarm()
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	// Calls still running are workers': a worker took each after spread
	// made done, and the one that finishes the last sends on it.
	if r.left.Load() != 0 {
		<-r.done
	}
	s.round.Store(nil)
}

// Release passes the timer on to a later run: the run has ended.
func (s *Spreader) Release() {
	if s.timer != nil {
		s.timer.SetTarget(nil)
		timers.Put(s.timer)
		s.timer = nil
	}
}

// Spread spreads the round under way once it is HandoffDelay old; the
// timer calls it. A late timer of an earlier round at worst spreads the
// next one early.
func (s *Spreader) Spread() {
	if r := s.round.Load(); r != nil {
		r.spread()
	}
}
