// Package straggler counts the work of ended runs that is still running:
// tool calls and model streams that ignored their context past a run's
// grace period. The process-wide registry is their owner: each reports
// here when it finally returns, and [Wait] waits for them.
package straggler

import (
	"context"
	"sync"
)

var reg struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to zero
}

// Add counts n more stragglers; n <= 0 counts none.
func Add(n int) {
	if n <= 0 {
		return
	}
	reg.mu.Lock()
	if reg.n == 0 {
		reg.idle = make(chan struct{})
	}
	reg.n += n
	reg.mu.Unlock()
}

// Done reports that one straggler returned.
func Done() {
	reg.mu.Lock()
	reg.n--
	if reg.n == 0 {
		close(reg.idle)
	}
	reg.mu.Unlock()
}

// Count returns how many stragglers are still running.
func Count() int {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.n
}

// Wait waits until every straggler has returned, or ctx ends.
func Wait(ctx context.Context) error {
	reg.mu.Lock()
	if reg.n == 0 {
		reg.mu.Unlock()
		return nil
	}
	idle := reg.idle
	reg.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
