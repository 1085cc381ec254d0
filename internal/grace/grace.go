// Package grace is a run's grace period: how long a run waits, once its
// context ended, for a tool call or a model stream that has not returned.
package grace

import "time"

// Timer is the grace period, started once the run's context ends. Its
// zero value is a period without bound.
type Timer struct {
	d     time.Duration
	bound bool
	t     *time.Timer
}

// New returns a period of d, or one without bound when bound is false.
func New(d time.Duration, bound bool) Timer { return Timer{d: d, bound: bound} }

// Start begins the period (once); a period without bound never ends.
func (g *Timer) Start() {
	if g.bound && g.t == nil {
		g.t = time.NewTimer(g.d)
	}
}

// Expired is the channel the period's end arrives on; nil before Start.
func (g *Timer) Expired() <-chan time.Time {
	if g.t == nil {
		return nil
	}
	return g.t.C
}

// Wait starts the period and waits for done, at most until the period
// ends; false means it ended first. A period without bound waits for done.
func (g *Timer) Wait(done <-chan struct{}) bool {
	g.Start()
	select {
	case <-done:
		return true
	case <-g.Expired():
		return false
	}
}

// Stop releases the period's timer.
func (g *Timer) Stop() {
	if g.t != nil {
		g.t.Stop()
	}
}

// Duration is the period's length (zero without bound).
func (g *Timer) Duration() time.Duration { return g.d }
