package starlarktool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Pool sizes. Workers are shared by every tool with the same memory cap;
// each keeps the programs it loaded, so a warm call is one round trip.
const (
	// maxBusy caps the workers running at once per memory cap; more
	// concurrent calls wait for one.
	maxBusy = 4
	// maxIdle is how many warm workers wait for the next call.
	maxIdle = 2
	// maxLoaded retires a worker that has loaded this many programs, so
	// their globals do not crowd its memory cap.
	maxLoaded = 64
	// cpuLifetime is a worker's lifetime CPU cap in seconds; it is
	// retired at half of it.
	cpuLifetime = 600
)

// pool holds the workers of one memory cap.
type pool struct {
	spec  workerSpec
	slots chan struct{}
	mu    sync.Mutex
	idle  []*process
	// stopped are workers killed but not yet reaped; the next get or put
	// reaps them.
	stopped []*process
}

var pools struct {
	mu sync.Mutex
	m  map[int64]*pool
}

// poolFor returns the process-wide pool of workers capped at memoryBytes.
func poolFor(memoryBytes int64) *pool {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	if pools.m == nil {
		pools.m = map[int64]*pool{}
	}
	p, ok := pools.m[memoryBytes]
	if !ok {
		p = &pool{spec: workerSpec{MemoryBytes: memoryBytes, CPUSeconds: cpuLifetime}, slots: make(chan struct{}, maxBusy)}
		pools.m[memoryBytes] = p
	}
	return p
}

// Program is a script compiled and its top level run, in a worker; see
// [Compile].
type Program struct {
	filename, src, id string
}

func newProgram(filename, src string) *Program {
	sum := sha256.Sum256([]byte(filename + "\x00" + src))
	return &Program{filename: filename, src: src, id: hex.EncodeToString(sum[:])}
}

// get takes a worker for prog: an idle one that loaded it, else any idle
// one, else a new one, waiting while maxBusy run.
func (p *pool) get(ctx context.Context, prog *Program) (*process, error) {
	p.reap()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	p.mu.Lock()
	pick := len(p.idle) - 1
	for i := len(p.idle) - 1; i >= 0; i-- {
		if p.idle[i].loaded[prog.id] {
			pick = i
			break
		}
	}
	var w *process
	if pick >= 0 {
		w = p.idle[pick]
		p.idle = append(p.idle[:pick], p.idle[pick+1:]...)
	}
	p.mu.Unlock()
	if w != nil {
		return w, nil
	}
	w, err := startProcess(ctx, p.spec)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return w, nil
}

// put returns w to the idle workers, or ends it when it died, is worn or
// enough wait already.
func (p *pool) put(w *process) {
	defer func() { <-p.slots }()
	if w.dead && !w.reaped {
		p.mu.Lock()
		p.stopped = append(p.stopped, w)
		p.mu.Unlock()
		return
	}
	if !w.dead && len(w.loaded) < maxLoaded && w.cpu.Seconds() < cpuLifetime/2 {
		p.mu.Lock()
		if len(p.idle) < maxIdle {
			p.idle = append(p.idle, w)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	w.kill()
}

// reap waits for the workers killed since the last reap.
func (p *pool) reap() {
	p.mu.Lock()
	stopped := p.stopped
	p.stopped = nil
	p.mu.Unlock()
	for _, w := range stopped {
		w.kill()
	}
}

// run loads prog in a worker unless it has, then, when call, runs it with
// args. A worker whose CPU cap is spent is replaced once.
func (p *pool) run(ctx context.Context, prog *Program, call bool, args []byte, lim Limits) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		w, err := p.get(ctx, prog)
		if err != nil {
			return nil, err
		}
		out, spent, err := p.runOn(ctx, w, prog, call, args, lim)
		if spent {
			w.stop()
		}
		p.put(w)
		if !spent || attempt > 0 {
			return out, err
		}
	}
}

func (p *pool) runOn(ctx context.Context, w *process, prog *Program, call bool, args []byte, lim Limits) (out []byte, spent bool, err error) {
	if !w.loaded[prog.id] {
		if _, spent, err := w.ask(ctx, request{Op: "load", Prog: prog.id, File: prog.filename}, []byte(prog.src), lim); err != nil {
			return nil, spent, err
		}
		w.loaded[prog.id] = true
	}
	if !call {
		return nil, false, nil
	}
	return w.ask(ctx, request{Op: "call", Prog: prog.id, File: prog.filename}, args, lim)
}

// ask runs req on w and folds the answer into the result, whether w's
// CPU cap was spent, and the error: the script's, a cap's or the worker's.
func (w *process) ask(ctx context.Context, req request, payload []byte, lim Limits) ([]byte, bool, error) {
	resp, out, err := w.run(ctx, req, payload, lim)
	switch {
	case err != nil:
		return nil, false, err
	case resp.Spent:
		return nil, true, &ScriptError{File: req.File, Limit: LimitCPU, Msg: "the worker's lifetime CPU cap is spent"}
	case resp.Err != nil:
		return nil, false, resp.Err
	}
	return out, false, nil
}
