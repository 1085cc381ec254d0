package callround

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paigasus/helikon/internal/straggler"
	"github.com/paigasus/helikon/internal/workpool"
)

// Live is a round of calls that run on workers while the driver streams
// their events, of type E. It is the job of each worker on it: a worker
// takes the calls nobody has taken, one after another, until none is left
// or the driver gave up on the round. The round starts on one worker, so
// a round of quick calls costs one hand-off; [Live.Spread] adds workers,
// at most bound in all. A run keeps one for all its rounds, since every
// worker has left a round when it ends (see state), and a Live is reused
// from round to round once [Live.Start] readied it again; one the driver
// gave up on ([Live.Abandon]) is not.
type Live[E any] struct {
	run   Runner
	n     int
	bound int
	// events carries the calls' events; over gets a token when the last
	// worker leaves a round the driver sleeps on (state).
	events chan E
	over   chan struct{}
	// gone is closed when the driver gives up on the round.
	gone chan struct{}

	mu sync.Mutex
	// next is the first call nobody has taken; running counts the calls
	// taken and not finished, workers the workers on the round.
	next      int
	running   int
	workers   int
	abandoned bool
	// state says whether the last worker has left the round, every call
	// finished, and whether the driver sleeps until it does.
	state atomic.Int32
}

// The states of a live round: its calls running, ended (the last worker
// left it), or running with the driver asleep on over (waited).
const (
	roundRunning int32 = iota
	roundEnded
	roundWaited
)

// awaitSpins is how many times the driver yields its processor between
// two looks at the round's events, its context and the clock while it
// waits for a young round.
const awaitSpins = 8

// awaitClock is the yield at which the driver first looks at the clock
// while it waits for a round, taking the round's start. A read of the
// clock costs a virtual machine about as much as a yield, so a round of
// quick calls (a few yields, most rounds) costs none; a round still
// running then is waited for HandoffDelay more, about 25 µs in all.
const awaitClock = 2 * awaitSpins

// spinners counts the drivers waiting for a round without sleeping (see
// Await). At most half the processors' worth do: a busy process (many
// runs in flight) has no idle processor to spare, and there drivers that
// yield again and again only delay the workers they wait for.
var spinners atomic.Int32

// Start readies the round for n calls that run runs, at most bound at
// once (0: no bound). The first worker comes with the first call taken
// ([Live.Submit]).
func (r *Live[E]) Start(n, bound int, run Runner) {
	if r.events == nil {
		// events is unbuffered: a round's events are few, and the driver
		// reads them until the round ends, so a worker sending one waits
		// for it briefly at most. over holds the one token of the end of
		// a round the driver sleeps on, so that the last worker leaves
		// without waiting for the driver.
		r.events, r.over, r.gone = make(chan E), make(chan struct{}, 1), make(chan struct{})
	}
	first := min(n, 1)
	r.run, r.n, r.bound, r.next, r.running, r.workers = run, n, bound, first, first, 1
	r.state.Store(roundRunning)
}

// Events is the channel the calls send their events on. A sender waits on
// it and on [Live.Gone] together: the driver reads it until the round
// ends or until it gives up on the round.
func (r *Live[E]) Events() chan<- E { return r.events }

// Gone is closed once the driver gave up on the round ([Live.Abandon]).
func (r *Live[E]) Gone() <-chan struct{} { return r.gone }

// Submit hands the round to its first worker.
func (r *Live[E]) Submit() {
	if r.n > 0 {
		workpool.Submit((*firstShare[E])(r))
	} else {
		workpool.Submit(r) // a round of none (a hostile checkpoint's) only ends
	}
}

// Await waits for the round to end while it is young, forwarding its
// events, and reports whether it ended. The driver does not sleep
// meanwhile: it looks whether the round ended (state, one load)
// workpool.Looks times, then yields its processor to the worker, and
// again, so a round of quick calls, most rounds, ends without waking it
// (a sleeping driver costs the worker a wake-up, which on an idle
// processor is a system call and a thread switch). It looks at the
// round's events and done (the calls' context's) only every awaitSpins
// yields, since a select costs more than a yield, and at the clock from
// awaitClock yields on, setting start at the first look. False means the
// round is still running HandoffDelay after start, or done was closed,
// or other drivers already wait this way (see spinners).
func (r *Live[E]) Await(done <-chan struct{}, start *time.Time, forward func(E)) bool {
	if spinners.Add(1) > int32(workpool.Procs()/2) {
		spinners.Add(-1)
		return false
	}
	defer spinners.Add(-1)
	for i := 1; ; i++ {
		for range workpool.Looks {
			if r.state.Load() == roundEnded {
				return true
			}
		}
		if i%awaitSpins == 0 {
			select {
			case ev := <-r.events:
				forward(ev)
			case <-done:
				return false
			default:
			}
			switch {
			case i < awaitClock:
			case start.IsZero():
				*start = time.Now()
			case time.Since(*start) >= HandoffDelay:
				return false
			}
		}
		runtime.Gosched()
	}
}

// Sleep tells the round the driver sleeps until it ends, and returns the
// channel its end arrives on, with the round's events; false means the
// round ended already and the driver need not wait.
func (r *Live[E]) Sleep() (events <-chan E, over <-chan struct{}, ok bool) {
	// From here the last worker to leave wakes the driver, unless it
	// left already.
	return r.events, r.over, r.state.CompareAndSwap(roundRunning, roundWaited)
}

// Run is a worker's share of the round.
func (r *Live[E]) Run() {
	r.mu.Lock()
	r.take()
}

// firstShare is the share of the round's first worker, which starts
// with the first call already taken (see Start): a round of one call,
// most rounds, then costs its worker one lock, not three.
type firstShare[E any] Live[E]

// Run runs the first call, then takes calls as any worker does.
func (f *firstShare[E]) Run() {
	r := (*Live[E])(f)
	r.runCall(0)
	r.take()
}

// take runs the calls nobody has taken, one after another, and leaves
// the round when none is left. It is called with mu held and returns with
// it released; the lock taken after a call serves the next take too.
func (r *Live[E]) take() {
	for {
		i := r.next
		if i >= r.n || r.abandoned {
			// A worker leaves only when no call is left to take, so Spread
			// adds none after the last has left.
			r.workers--
			last := r.workers == 0 && !r.abandoned
			r.mu.Unlock()
			if last && !r.state.CompareAndSwap(roundRunning, roundEnded) {
				// The driver sleeps (roundWaited). Never blocks: it
				// takes the round's one token before the next round.
				r.over <- struct{}{}
			}
			return
		}
		r.next++
		r.running++
		r.mu.Unlock()
		r.runCall(i)
	}
}

// runCall runs call i, taken, and returns with mu held.
func (r *Live[E]) runCall(i int) {
	r.run.RunCall(i)
	r.mu.Lock()
	r.running--
	if r.abandoned {
		straggler.Done()
	}
}

// Spread adds workers for the calls nobody has taken, up to the round's
// bound.
func (r *Live[E]) Spread() {
	r.mu.Lock()
	n := r.n - r.next
	if r.bound > 0 {
		n = min(n, r.bound-r.workers)
	}
	if r.abandoned || n <= 0 {
		r.mu.Unlock()
		return
	}
	r.workers += n
	r.mu.Unlock()
	for range n {
		workpool.Submit(r)
	}
}

// Abandon gives up on the calls still running and returns how many there
// were; no worker takes another call after it, each still running is
// counted as a straggler until it returns, and Gone is closed.
func (r *Live[E]) Abandon() int {
	r.mu.Lock()
	r.abandoned = true
	straggler.Add(r.running)
	n := r.running
	r.mu.Unlock()
	close(r.gone)
	return n
}
