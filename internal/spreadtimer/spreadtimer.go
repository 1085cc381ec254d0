// Package spreadtimer is the timer behind the core's tool rounds and the
// workflow fan-outs: work runs on the goroutine that has it first, and
// what waits goes to workers once that work is older than a delay.
//
// Arming a [time.Timer] for a delay of microseconds is cheap on the
// goroutine that arms it, but the deadline is almost always the earliest
// in the process, so the runtime wakes the thread asleep in the network
// poller to tell it (a write to an eventfd): a reset and a stop cost a
// loop of 22.8 µs of work about 0.5 µs more on this project's 2-core
// virtual machine, once per round or fan-out. A [Timer]
// lingers instead: disarming it leaves the runtime timer running, and an
// arming that finds it still running only notes the time. When it fires it
// runs the work only if it has been armed for the whole delay, runs again
// for the rest of it otherwise, and runs once more after a period in which
// it was armed, so rounds that follow each other within the delay never
// touch the runtime timer. A timer nobody armed for a whole period stops.
package spreadtimer

import (
	"sync"
	"time"
)

// Target is what a [Timer] spreads: its Spread runs, on a goroutine of
// its own, once the Timer has been armed for its delay.
type Target interface{ Spread() }

// Timer calls its target's Spread once it has been armed for its delay
// without being disarmed. Ready it with [Timer.Init]. A Timer outlives
// its owners: kept in a pool, it passes from one to the next with
// [Timer.SetTarget], still running, so that the next one's first arming is
// as cheap as the rest. Its methods are safe for concurrent use.
type Timer struct {
	d time.Duration
	t *time.Timer

	mu     sync.Mutex
	target Target // nil: spread nothing
	// armed is set from Arm to Disarm or the spread, and armedAt is
	// when Arm set it, on clock.
	armed   bool
	armedAt time.Duration
	// running is set while the runtime timer is due to fire, or firing
	// and yet to decide whether to run again; used is set by every Arm
	// and cleared by each firing, which runs again only after a period
	// with an Arm in it.
	running bool
	used    bool
	// resets counts the runtime timer's arming, for the tests.
	resets int
}

// base is the origin of clock.
var base = time.Now()

// clock is the time since base: one monotonic reading, where time.Now
// takes two.
func clock() time.Duration { return time.Since(base) }

// Init readies t, disarmed, to spread target once armed for d.
func (t *Timer) Init(d time.Duration, target Target) {
	t.d, t.target = d, target
	t.t = time.AfterFunc(time.Hour, t.fire)
	t.t.Stop()
}

// SetTarget disarms t and makes target what it spreads from now on; a
// firing under way spreads the target it found, or none.
func (t *Timer) SetTarget(target Target) {
	t.mu.Lock()
	t.armed, t.target = false, target
	t.mu.Unlock()
}

// Arm starts the delay: the target spreads once it has passed, unless Disarm comes
// first. Arming an armed Timer starts the delay again.
func (t *Timer) Arm() {
	now := clock()
	t.mu.Lock()
	t.armed, t.armedAt, t.used = true, now, true
	if !t.running {
		t.running = true
		t.resets++
		t.t.Reset(t.d)
	}
	t.mu.Unlock()
}

// Disarm cancels the delay under way, if any. The runtime timer runs on
// for the next Arm (see the package's doc).
func (t *Timer) Disarm() {
	t.mu.Lock()
	t.armed = false
	t.mu.Unlock()
}

// fire is the runtime timer's func.
func (t *Timer) fire() {
	t.mu.Lock()
	var due Target
	if t.armed {
		if rest := t.d - (clock() - t.armedAt); rest > 0 {
			// A deadline of an earlier arming: the delay of this one
			// has some way to go.
			t.resets++
			t.t.Reset(rest)
			t.mu.Unlock()
			return
		}
		t.armed, due = false, t.target
	}
	if t.used {
		t.used = false
		t.resets++
		t.t.Reset(t.d)
	} else {
		t.running = false
	}
	t.mu.Unlock()
	if due != nil {
		due.Spread()
	}
}
