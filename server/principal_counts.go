package server

import "sync"

// principalCounts counts what each principal holds of a shared resource
// (its runs in flight, its open event streams), so that one principal
// cannot take all of it and refuse the others ([Limits].MaxRunsPerPrincipal,
// [Limits].MaxStreamsPerPrincipal).
type principalCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// enter counts one more for principal id, or reports false when it holds
// limit already.
func (p *principalCounts) enter(id string, limit int) bool {
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

// leave gives back one of principal id's.
func (p *principalCounts) leave(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[id]--; p.n[id] <= 0 {
		delete(p.n, id)
	}
}
