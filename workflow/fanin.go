package workflow

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/paigasus/helikon"
)

// fanIn runs sub-agents concurrently and funnels their events to the one
// goroutine that consumes the parent's stream, so only that goroutine ever
// calls yield. Each child runs on a goroutine of the package's branch pool
// ([branches]), which folds the child's lifecycle events into its outcome
// and sends only what the parent forwards. close stops the children still
// running and waits for every one of them.
//
// A child that would run alone (no other child is running and none is
// started beside it, as a graph node whose predecessors all finished) can
// run on the consumer's goroutine instead ([fanIn.runInline]): its events
// then reach yield with no hand-off between goroutines.
//
// The children share a context derived from the parent's for close to
// cancel, unless the parent's context can never be cancelled: then, as a
// single agent's run on it does, a child stops at its next event once the
// consumer has gone (the event it sends is refused), and it runs on a
// context its model and tools need no watcher goroutine for. A cancellable
// context costs every child run a goroutine per model call, which on a
// parent that cannot be cancelled buys only an earlier stop.
type fanIn struct {
	ctx    context.Context
	cancel context.CancelFunc
	// The children's events wait in queue for the consumer, which takes
	// them all at once into batch: a lock per event and one per batch,
	// where a channel cost a lock on each side of every event. mu guards
	// queue, waiting, blocked and stopped; room, on mu, wakes the children
	// waiting for the queue to drain.
	mu      sync.Mutex
	room    sync.Cond
	queue   []childEvent
	batch   []childEvent // taken from queue; batch[pos:] not yet forwarded
	pos     int
	waiting bool          // the consumer waits on wake for the queue to fill
	wake    chan struct{} // one slot: at most one wake-up is ever pending
	blocked int           // children waiting on room
	stopped bool          // the consumer has gone: events are refused
	// wg counts the children handed to the pool that have not yet ended.
	wg sync.WaitGroup
	// outs[i] is child i's outcome, written by its goroutine before the end
	// marker and read by the consumer after it.
	outs []helikon.ChildOutcome
	kids []fanChild
	// inline is the child running on the consumer's goroutine, if any;
	// forward, made on first use, is the yield it streams through.
	inline  inlineRun
	forward func(helikon.Event) bool
}

// fanChild is one child of a fanIn: what it runs, for the goroutine that
// runs it.
type fanChild struct {
	f     *fanIn
	i     int
	agent helikon.Agent
	rc    *helikon.RunContext
	input []helikon.Item
	from  *ResumePoint
}

// childEvent is one event of child i; a nil ev marks the end of its stream.
type childEvent struct {
	i  int
	ev helikon.Event
}

// newFanIn returns a fanIn for at most n children.
func newFanIn(ctx context.Context, n int) *fanIn {
	cancel := func() {}
	if ctx.Done() != nil {
		ctx, cancel = context.WithCancel(ctx)
	}
	// A few events of slack per child keeps a branch streaming while the
	// consumer handles another's events; beyond that, a slow consumer
	// slows the children down. The queue never holds more, so neither it
	// nor the batch it turns into ever grows.
	bound := 4 * n
	buf := make([]childEvent, 2*bound)
	f := &fanIn{
		ctx: ctx, cancel: cancel,
		queue: buf[:0:bound],
		batch: buf[bound:bound],
		wake:  make(chan struct{}, 1),
		outs:  make([]helikon.ChildOutcome, n),
		kids:  make([]fanChild, n),
	}
	f.room.L = &f.mu
	return f
}

// start runs agent as child i (or resumes it, with from) on a goroutine of
// the branch pool.
func (f *fanIn) start(i int, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, from *ResumePoint) {
	f.kids[i] = fanChild{f: f, i: i, agent: agent, rc: rc, input: input, from: from}
	f.wg.Add(1)
	branches.submit(&f.kids[i])
}

// runInline runs agent as child i (or resumes it, with from) on the
// consumer's goroutine, its events going straight to yield, and settles
// its outcome in f.outs[i]. The caller starts no other child meanwhile and
// none may be running: their events would wait until this child's next
// one. A panic of the child fails it alone, as on a pool goroutine; a
// panic of yield (the consumer's loop body) is the consumer's and goes on
// up. ok is false when the consumer stopped.
func (f *fanIn) runInline(i int, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, from *ResumePoint, yield func(helikon.Event) bool) (ok bool) {
	in := &f.inline
	*in = inlineRun{o: &f.outs[i], yield: yield, ok: true}
	if f.forward == nil {
		f.forward = func(ev helikon.Event) bool { return f.inline.forward(ev) }
	}
	func() {
		defer func() {
			if in.inYield {
				return // not recovered: the panic goes on to the consumer
			}
			if r := recover(); r != nil {
				childPanicked(in.o, agent, r)
			}
		}()
		ChildStream(f.ctx, agent, rc, input, from)(f.forward)
	}()
	in.o.End(agent.Name())
	ok = in.ok
	*in = inlineRun{}
	return ok
}

// inlineRun is the child a fanIn runs on the consumer's goroutine.
type inlineRun struct {
	o       *helikon.ChildOutcome
	yield   func(helikon.Event) bool
	inYield bool // yield is running: a panic now is the consumer's
	ok      bool // false once yield refused an event
}

// forward folds ev into the child's outcome and passes it on, unless the
// consumer has stopped.
func (in *inlineRun) forward(ev helikon.Event) bool {
	if !in.ok {
		return false
	}
	if !in.o.See(ev) {
		return true
	}
	in.inYield = true
	in.ok = in.yield(ev)
	in.inYield = false
	return in.ok
}

// childPanicked fails a child whose run panicked with r: it fails alone
// rather than taking the process down from a goroutine its caller cannot
// recover in.
func childPanicked(o *helikon.ChildOutcome, agent helikon.Agent, r any) {
	slog.Error("helikon: sub-agent panicked", "agent", agent.Name(), "panic", r, "stack", string(debug.Stack()))
	o.See(helikon.RunFailed{Err: agentErrorf(helikon.KindOther, agent.Name(), "panic: %v", r)})
}

// next forwards the children's events until one child's stream ends and
// returns that child's index; its outcome is then in f.outs. ok is false
// when the consumer stopped.
func (f *fanIn) next(yield func(helikon.Event) bool) (i int, ok bool) {
	for {
		for f.pos < len(f.batch) {
			e := f.batch[f.pos]
			f.batch[f.pos] = childEvent{} // the batch's array is reused
			f.pos++
			if e.ev == nil {
				return e.i, true
			}
			if !yield(e.ev) {
				return e.i, false
			}
		}
		f.take()
	}
}

// take waits for the queue to hold events and takes them all as the
// batch; the batch's spent array becomes the queue.
func (f *fanIn) take() {
	f.mu.Lock()
	for len(f.queue) == 0 {
		f.waiting = true
		f.mu.Unlock()
		<-f.wake
		f.mu.Lock()
	}
	f.queue, f.batch, f.pos = f.batch[:0], f.queue, 0
	if f.blocked > 0 {
		f.room.Broadcast()
	}
	f.mu.Unlock()
}

// send queues e for the consumer, waiting while the queue is full; it
// refuses e (false) once the consumer has gone.
func (f *fanIn) send(e childEvent) bool {
	f.mu.Lock()
	for len(f.queue) == cap(f.queue) && !f.stopped {
		f.blocked++
		f.room.Wait()
		f.blocked--
	}
	if f.stopped {
		f.mu.Unlock()
		return false
	}
	f.queue = append(f.queue, e)
	wake := f.waiting
	f.waiting = false
	f.mu.Unlock()
	if wake {
		f.wake <- struct{}{} // never blocks: one sender sees waiting per wait
	}
	return true
}

// close stops the children still running and waits for every child handed
// to the pool to end.
func (f *fanIn) close() {
	f.mu.Lock()
	f.stopped = true
	f.room.Broadcast()
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
}

// branchIdle is how long a pool goroutine waits for its next child before
// it ends. Back-to-back runs (a busy server, a benchmark) find their
// goroutines warm, with stacks already grown by earlier children; an idle
// process keeps none for long.
const branchIdle = 50 * time.Millisecond

// branches is the process's pool of goroutines that run the children of
// parallel and graph agents. It owns its idle goroutines: each ends once
// idle for branchIdle. A goroutine running a child is accounted for by the
// fanIn that handed the child over, which waits for the child's end
// ([fanIn.close]).
//
// An idle goroutine waits on a channel of its own, and one timer for the
// whole pool ends those idle too long: handing a child over costs a lock
// and a send, not a select and a timer reset per child.
var branches branchPool

type branchPool struct {
	mu sync.Mutex
	// idle holds the idle goroutines, longest idle first; the last went
	// idle most recently, with the warmest stack, and is the next to run
	// a child.
	idle  []*brancher
	reap  *time.Timer // ends goroutines idle too long; armed while idle is not empty
	armed bool
}

// submit runs c on an idle goroutine, or on a new one when none is idle.
func (p *branchPool) submit(c *fanChild) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		b := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		b.wake <- c // never blocks: nothing else sends to a goroutine taken off idle
		return
	}
	p.mu.Unlock()
	go p.work(c)
}

// brancher is one goroutine of the pool. Its forward, built once, is the
// yield every child it runs streams through, so a child costs no closure.
type brancher struct {
	c       *fanChild
	o       *helikon.ChildOutcome
	forward func(helikon.Event) bool
	// wake brings the next child, or nil to end; one slot, so neither
	// submit nor the reaper ever waits on it.
	wake chan *fanChild
	// since is when the goroutine last went idle.
	since time.Time
}

func (p *branchPool) work(c *fanChild) {
	growStack(0)
	b := &brancher{wake: make(chan *fanChild, 1)}
	b.forward = func(ev helikon.Event) bool {
		return !b.o.See(ev) || b.c.f.send(childEvent{i: b.c.i, ev: ev})
	}
	for c != nil {
		b.run(c)
		p.park(b)
		c = <-b.wake
	}
}

// park puts b on the idle list, arming the reaper if it is not.
func (p *branchPool) park(b *brancher) {
	b.since = time.Now()
	p.mu.Lock()
	p.idle = append(p.idle, b)
	if !p.armed {
		p.armed = true
		if p.reap == nil {
			p.reap = time.AfterFunc(branchIdle, p.reapIdle)
		} else {
			p.reap.Reset(branchIdle)
		}
	}
	p.mu.Unlock()
}

// reapIdle ends the goroutines idle for branchIdle or longer and rearms
// for the next of the others to reach it.
func (p *branchPool) reapIdle() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	k := 0
	for k < len(p.idle) && now.Sub(p.idle[k].since) >= branchIdle {
		p.idle[k].wake <- nil
		k++
	}
	n := copy(p.idle, p.idle[k:])
	clear(p.idle[n:])
	p.idle = p.idle[:n]
	if n == 0 {
		p.armed = false
		return
	}
	p.reap.Reset(branchIdle - now.Sub(p.idle[0].since))
}

// run forwards child c's events, settles its outcome, marks its end, and
// then lets go of c: once the fanIn's wait is released c may be gone.
func (b *brancher) run(c *fanChild) {
	f := c.f
	b.c, b.o = c, &f.outs[c.i]
	defer func() {
		if r := recover(); r != nil {
			childPanicked(b.o, c.agent, r)
		}
		b.o.End(c.agent.Name())
		f.send(childEvent{i: c.i})
		b.c, b.o = nil, nil
		f.wg.Done()
	}()
	ChildStream(f.ctx, c.agent, c.rc, c.input, c.from)(b.forward)
}
