package server

import "sync"

// principalRuns counts the runs each principal has started and not yet
// finished, so that one principal cannot take every run slot of the server
// and refuse the others ([Limits].MaxRunsPerPrincipal).
type principalRuns struct {
	mu sync.Mutex
	n  map[string]int
}

// enter counts a new run of principal id, or reports false when limit of
// its runs are already counted.
func (p *principalRuns) enter(id string, limit int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[id] >= limit {
		return false
	}
	if p.n == nil {
		p.n = make(map[string]int)
	}
	p.n[id]++
	return true
}

// leave ends a run of principal id.
func (p *principalRuns) leave(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[id]--; p.n[id] <= 0 {
		delete(p.n, id)
	}
}
