package starlarktool

import "slices"

// StopWorkers ends every idle worker and waits for it to exit, so that no
// worker outlives the program that started it: call it when the program is
// done with its script tools (helikon's cli.Main does, before it returns).
// A worker still running a call is left to it, and a tool called later
// starts a new worker.
func StopWorkers() {
	pools.mu.Lock()
	ps := make([]*pool, 0, len(pools.m))
	for _, p := range pools.m {
		ps = append(ps, p)
	}
	pools.mu.Unlock()
	for _, p := range ps {
		p.stopIdle()
	}
}

// stopIdle kills and reaps the idle workers and those already stopped.
func (p *pool) stopIdle() {
	p.mu.Lock()
	ws := slices.Concat(p.idle, p.stopped)
	p.idle, p.stopped = nil, nil
	p.mu.Unlock()
	for _, w := range ws {
		w.kill()
	}
}
