package callround

import (
	"sync/atomic"
	"testing"
	"time"
)

// runFunc is a Runner over a func.
type runFunc func(i int)

func (f runFunc) RunCall(i int) { f(i) }

// counted is a round's calls: how often each ran, and the most that ran at
// once. A call holds for hold, so that a round lives long enough to spread.
type counted struct {
	ran     []atomic.Int32
	running atomic.Int32
	most    atomic.Int32
	hold    time.Duration
}

func newCounted(n int, hold time.Duration) *counted {
	return &counted{ran: make([]atomic.Int32, n), hold: hold}
}

func (c *counted) RunCall(i int) {
	now := c.running.Add(1)
	for {
		m := c.most.Load()
		if now <= m || c.most.CompareAndSwap(m, now) {
			break
		}
	}
	time.Sleep(c.hold)
	c.ran[i].Add(1)
	c.running.Add(-1)
}

func (c *counted) check(t *testing.T, bound int) {
	t.Helper()
	for i := range c.ran {
		if n := c.ran[i].Load(); n != 1 {
			t.Errorf("call %d ran %d times; want once", i, n)
		}
	}
	if n := c.running.Load(); n != 0 {
		t.Errorf("the round ended with %d calls running", n)
	}
	if bound > 0 && int(c.most.Load()) > bound {
		t.Errorf("%d calls ran at once; the bound is %d", c.most.Load(), bound)
	}
}

// guard fails the test if run does not return in 30 s: a round whose
// calls wait on each other and never spreads never ends.
func guard(t *testing.T, what string, run func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		run()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not end", what)
	}
}
