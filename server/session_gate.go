package server

import (
	"context"
	"sync"
)

// sessionGates serialises the runs of each session: a session's runs take
// its gate in turn, and at most limit of them hold or wait for it.
type sessionGates struct {
	mu    sync.Mutex
	gates map[string]*gate
}

type gate struct {
	turn chan struct{} // holds a token while a run has the session
	n    int           // runs holding or waiting; guarded by sessionGates.mu
}

// enter counts a new run on session id, or reports false when limit runs
// already hold or wait for it.
func (g *sessionGates) enter(id string, limit int) (*gate, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates == nil {
		g.gates = make(map[string]*gate)
	}
	gt := g.gates[id]
	if gt == nil {
		gt = &gate{turn: make(chan struct{}, 1)}
		g.gates[id] = gt
	}
	if gt.n >= limit {
		return nil, false
	}
	gt.n++
	return gt, true
}

// tryAcquire takes the session's turn if no run holds it, without
// waiting.
func (gt *gate) tryAcquire() bool {
	select {
	case gt.turn <- struct{}{}:
		return true
	default:
		return false
	}
}

// acquire waits for the session's turn, or for ctx.
func (gt *gate) acquire(ctx context.Context) error {
	select {
	case gt.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave ends a run's use of the gate, releasing its turn if it held one.
func (g *sessionGates) leave(id string, gt *gate, held bool) {
	if held {
		<-gt.turn
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gt.n--
	if gt.n == 0 {
		delete(g.gates, id)
	}
}
