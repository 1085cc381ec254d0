package workflow

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/eventclock"
	"github.com/paigasus/helikon/internal/spreadtimer"
)

// fanIn runs sub-agents concurrently and funnels their events to the one
// goroutine that consumes the parent's stream, so only that goroutine ever
// calls yield. close stops the children still running and waits for every
// one of them.
//
// Children run inline first: the consumer runs the children added
// ([fanIn.add]) one after another on its own goroutine, their events
// reaching yield with no hand-off between goroutines, as a sequential
// agent's steps do. Most children that wait on nothing (a scripted model, a
// cached answer) are done within handoffDelay, and then the fan-out costs
// no hand-off at all. When the children are still running once handoffDelay
// has passed since the consumer began one with others waiting, the waiting
// ones go to goroutines of the package's branch pool ([branches]), which
// fold each child's lifecycle events into its outcome and send only what
// the parent forwards: a child that blocks holds the others back for no
// longer than the delay. Their events reach the consumer between the
// events of the child it runs, or once that child ends. Meanwhile they
// wait in the queue with no bound: the child the consumer runs may be
// waiting for one of them, which must not wait for the consumer. So a
// pooled child that streams while the consumer's child is silent (a long
// tool call, a model call that does not stream) holds all it streamed in
// memory until that child's next event, and the consumer sees none of it
// before then. A child added while another runs on the pool goes to the
// pool at once.
//
// A child on the consumer's goroutine runs on the parent's context: it
// has ended before close. The children on the pool share a context
// derived from the parent's for close to cancel, made when the first goes
// there, unless the parent's context can never be cancelled: then, as a
// single agent's run on it does, a child stops at its next event once the
// consumer has gone (the event it sends is refused), and it runs on a
// context its model and tools need no watcher goroutine for. A cancellable
// context costs every child run a goroutine per model call, which on a
// parent that cannot be cancelled buys only an earlier stop.
type fanIn struct {
	ctx context.Context
	// mu guards stopped, pending, inlining and armed, and the pool's
	// queue and its wake-up (fanPool), once another goroutine may reach
	// the fan-in (shared); before, the consumer takes no lock.
	mu      sync.Mutex
	stopped bool // the consumer has gone: events are refused
	// pending holds the children added that nobody has started, in the
	// order they were added; inlining is set while the consumer runs one
	// of them, and then a pooled child's send never waits, since the
	// consumer takes the queue only at its own child's events (a child
	// the consumer's child waits for must not wait for the consumer).
	pending  []int
	inlining bool
	// armed is set while the spread timer is armed: while the consumer
	// runs a child with others pending, until it fires.
	armed bool
	// pooled counts the children handed to the pool whose end the
	// consumer has not met; ended holds the ends it met while forwarding
	// between the events of its own child, for next to report.
	pooled atomic.Int32
	ended  []int
	// pool is what only children on the pool need, made (under mu) when
	// the first goes there, which most fan-outs never do: a small
	// graph's run then fits a smaller size class. It is set once, and
	// pooled is raised after it, so a reader that found pooled above
	// zero, or that runs on the pool, finds it set.
	pool atomic.Pointer[fanPool]
	// spread hands the pending children to the pool (spreadPending).
	spread *spreadtimer.Timer
	// outs[i] is child i's outcome, written by its goroutine before the end
	// marker and read by the consumer after it.
	outs []helikon.ChildOutcome
	kids []fanChild
	// inline is the child running on the consumer's goroutine, if any;
	// forward, made on first use, is the yield it streams through.
	inline  inlineRun
	forward func(helikon.Event) bool
	// direct is the consumer's own yield beneath the one the fan-in is
	// given (see fanOut): the inline children's announcements, and the
	// events of those that stamp their own, take it.
	direct func(helikon.Event) bool
	// A graph's node run on the consumer's goroutine holds back every
	// node that would become ready meanwhile, since only the consumer
	// starts nodes: next runs child i there only if every node not added
	// yet (later, a bit a node) descends from i (desc[i]) and waits for it
	// anyway. A graph too large for the bits (graph set, desc nil) runs a
	// node there only alone.
	graph bool
	desc  []int
	later int
}

// fanPool is the part of a fanIn that only children on the pool need:
// their context, the queue their events wait in and the consumer's
// wake-up.
type fanPool struct {
	// ctx is the pooled children's context and cancel, if not nil,
	// cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// The pooled children's events wait in queue for the consumer, which
	// takes them all at once into batch: a lock per event and one per
	// batch, where a channel cost a lock on each side of every event. The
	// fanIn's mu guards queue, spare, waiting and blocked; room, on mu,
	// wakes the children waiting for the queue to drain.
	room    sync.Cond
	queue   []childEvent
	spare   []childEvent // the queue's second array until the first take
	batch   []childEvent // the consumer's: taken from queue; batch[pos:] not yet forwarded
	pos     int
	bound   int           // a child waits while the queue holds this many, unless inlining
	waiting bool          // the consumer waits on wake for the queue to fill
	wake    chan struct{} // one slot: at most one wake-up is ever pending
	blocked int           // children waiting on room
	// wg counts the children handed to the pool that have not yet ended.
	wg sync.WaitGroup
}

// handoffDelay is how long the children of a fan-out run one after
// another on the consumer's goroutine before the ones not started yet go
// to the pool; see fanIn. It matches the core's delay for a round of tool
// calls. It is a variable for the test binary's -handoffdelay only.
var handoffDelay = 20 * time.Microsecond

// fanChild is one child of a fanIn: what it runs, for the goroutine that
// runs it.
type fanChild struct {
	f     *fanIn
	i     int
	agent helikon.Agent
	rc    *helikon.RunContext
	input []helikon.Item
	from  *ResumePoint
	// stamps is set for a child that stamps its own events (stampsEvents);
	// the fan-in stamps the others' as they come.
	stamps bool
}

// childEvent is one event of child i; a nil ev marks the end of its stream.
type childEvent struct {
	i  int
	ev helikon.Event
}

// smallFan is the most children a fanIn holds in its own allocation.
const smallFan = 4

// smallFanIn is a fanIn with room for up to smallFan children's outcomes,
// slots and indices: most fan-outs are that small, and one allocation
// for all of it saves three of every run's.
type smallFanIn struct {
	fanIn
	outs [smallFan]helikon.ChildOutcome
	kids [smallFan]fanChild
	ints [2 * smallFan]int
}

// newFanIn returns a fanIn for at most n children.
func newFanIn(ctx context.Context, n int) *fanIn {
	if n <= smallFan {
		return new(smallFanIn).init(ctx, n)
	}
	f := new(fanIn)
	f.outs, f.kids = make([]helikon.ChildOutcome, n), make([]fanChild, n)
	return f.init(ctx, n, make([]int, 2*n))
}

// init readies s as a fanIn for at most n children, n <= smallFan, in its
// own room: a caller that holds s in an allocation of its own (a small
// graph's run) saves the fanIn's.
func (s *smallFanIn) init(ctx context.Context, n int) *fanIn {
	f := &s.fanIn
	f.outs, f.kids = s.outs[:n], s.kids[:n]
	return f.init(ctx, n, s.ints[:2*n])
}

// init readies f, with its outs and kids made, for at most n children;
// ints has room for 2n.
func (f *fanIn) init(ctx context.Context, n int, ints []int) *fanIn {
	f.ctx = ctx
	f.pending, f.ended = ints[:0:n], ints[n:n]
	return f
}

// readyPool readies the context, the queue and the consumer's wake-up for
// children on the pool, which most fan-outs never hand one to, and
// returns them. f.mu is held.
func (f *fanIn) readyPool() *fanPool {
	if p := f.pool.Load(); p != nil {
		return p
	}
	// A few events of slack per child keeps a branch streaming while the
	// consumer handles another's events; beyond that, a slow consumer
	// slows the children down. Only while the consumer runs a child of its
	// own does the queue grow past it.
	p := &fanPool{ctx: f.ctx, bound: 4 * len(f.outs), wake: make(chan struct{}, 1)}
	if f.ctx.Done() != nil {
		p.ctx, p.cancel = context.WithCancel(f.ctx)
	}
	p.room.L = &f.mu
	buf := make([]childEvent, 2*p.bound)
	p.queue, p.spare = buf[:0:p.bound], buf[p.bound:p.bound]
	f.pool.Store(p)
	return p
}

// add runs agent as child i (or resumes it, with from): inline first, or
// on the pool at once when a child added earlier runs there, announced by
// an AgentUpdated then. Every child added ends as one result of next. ok
// is false when the consumer stopped.
func (f *fanIn) add(i int, agent helikon.Agent, rc *helikon.RunContext, input []helikon.Item, from *ResumePoint, yield func(helikon.Event) bool) (ok bool) {
	f.kids[i] = fanChild{f: f, i: i, agent: agent, rc: rc, input: input, from: from, stamps: stampsEvents(agent)}
	// The child's RunStarted and RunCompleted would only be folded into
	// its outcome; an LLM agent settles them there without the events.
	rc.FoldInto(agent, &f.outs[i])
	if !f.shared() {
		f.pending = append(f.pending, i)
		return true
	}
	f.mu.Lock()
	if f.pooled.Load() == 0 {
		f.pending = append(f.pending, i)
		f.mu.Unlock()
		return true
	}
	f.mu.Unlock()
	return f.toPool(i, yield)
}

// toPool hands child i to the pool at once, announced by an AgentUpdated;
// it is false when the consumer stopped. It runs on the consumer's
// goroutine.
func (f *fanIn) toPool(i int, yield func(helikon.Event) bool) bool {
	f.mu.Lock()
	p := f.readyPool()
	f.mu.Unlock()
	if !f.direct(announce(f.kids[i].agent)) {
		return false
	}
	f.pooled.Add(1)
	p.wg.Add(1)
	branches.submit(&f.kids[i])
	return true
}

// mayInline reports whether child i, just taken from pending, may run on
// the consumer's goroutine. f.mu is held once f is shared.
func (f *fanIn) mayInline(i int) bool {
	switch {
	case !f.graph:
		return true
	case f.desc != nil:
		return f.later&^f.desc[i] == 0
	}
	return len(f.pending) == 0 && f.pooled.Load() == 0
}

// announce is the AgentUpdated that opens a child's events.
func announce(agent helikon.Agent) helikon.Event {
	return helikon.AgentUpdated{At: eventclock.Now(), Agent: agent.Name()}
}

// spreadPending hands the children nobody has started to the pool, each
// announced in the queue ahead of its own events. It runs on the spread
// timer's goroutine.
func (f *fanIn) spreadPending() {
	f.mu.Lock()
	// A timer stopped too late to keep it from firing may spread children
	// pending for a later timer early; that is all it can do.
	f.armed = false
	ks := f.pending
	if f.stopped || len(ks) == 0 {
		f.mu.Unlock()
		return
	}
	// The consumer adds after ks, never into it: pending's array has
	// room for every child once.
	f.pending = ks[len(ks):]
	p := f.readyPool()
	for _, i := range ks {
		p.queue = append(p.queue, childEvent{i: i, ev: announce(f.kids[i].agent)})
	}
	f.pooled.Add(int32(len(ks)))
	p.wg.Add(len(ks))
	wake := p.waiting
	p.waiting = false
	f.mu.Unlock()
	if wake {
		p.wake <- struct{}{}
	}
	for _, i := range ks {
		branches.submit(&f.kids[i])
	}
}

// next forwards the children's events until one child's stream ends and
// returns that child's index; its outcome is then in f.outs. A child
// pending when no other's events wait runs to its end on this goroutine
// first. ok is false when the consumer stopped.
func (f *fanIn) next(yield func(helikon.Event) bool) (i int, ok bool) {
	for {
		for p := f.pool.Load(); p != nil && p.pos < len(p.batch); {
			e := p.batch[p.pos]
			p.batch[p.pos] = childEvent{} // the batch's array is reused
			p.pos++
			if e.ev == nil {
				f.pooled.Add(-1)
				return e.i, true
			}
			if !yield(e.ev) {
				return e.i, false
			}
		}
		if len(f.ended) > 0 {
			i, f.ended = f.ended[0], f.ended[1:]
			return i, true
		}
		if i, inline, ok := f.takePending(); ok {
			if !inline {
				if !f.toPool(i, yield) {
					return i, false
				}
				continue
			}
			return i, f.runInline(i, yield)
		}
		f.mu.Lock()
		f.inlining = false
		// No child is pending and none runs here: the rest run on the
		// pool, made when the first went there.
		p := f.pool.Load()
		for len(p.queue) == 0 {
			p.waiting = true
			f.mu.Unlock()
			<-p.wake
			f.mu.Lock()
		}
		p.take()
		f.mu.Unlock()
	}
}

// takePending takes the first child nobody has started, if any (ok), and
// reports whether it may run on the consumer's goroutine; if so, it
// notes that one does and arms the spread timer while others wait. It
// locks mu only once f is shared: arming the timer may share f, and the
// timer's own lock orders the writes before it ahead of a fire.
func (f *fanIn) takePending() (i int, inline, ok bool) {
	if f.shared() {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	if len(f.pending) == 0 {
		return 0, false, false
	}
	i = f.pending[0]
	f.pending = f.pending[1:]
	if !f.mayInline(i) {
		return i, false, true
	}
	f.inlining = true
	f.armSpread(len(f.pending) > 0)
	return i, true, true
}

// shared reports whether a goroutine beside the consumer's may reach f: a
// child on the pool, or the spread timer, which may fire after it was
// disarmed. Until then the consumer alone reads and writes f, and takes
// no lock to.
func (f *fanIn) shared() bool { return f.spread != nil || f.pool.Load() != nil }

// armSpread arms the spread timer while children wait for the one the
// consumer starts, and disarms it once none does. f.mu is held once f is shared.
func (f *fanIn) armSpread(others bool) {
	switch {
	case others && !f.armed:
		f.armed = true
		if f.spread == nil {
			f.spread = spreaders.Get().(*spreadtimer.Timer)
			f.spread.SetTarget(f)
		}
		f.spread.Arm()
	case !others && f.armed:
		f.armed = false
		f.spread.Disarm()
	}
}

// spreaders holds the spread timers of the fan-outs that have none: a
// timer and the function it calls cost two allocations, and a timer still
// running from the last fan-out (see spreadtimer) arms the next without
// waking another thread. A timer that fires after its fan-in let go of it
// spreads nothing, or the next fan-in's pending children early, which is
// all a late timer can do.
var spreaders = sync.Pool{New: func() any {
	t := new(spreadtimer.Timer)
	t.Init(handoffDelay, nil)
	return t
}}

// Spread hands the pending children to the pool: the spread timer calls
// it once the consumer has run a child of its own for handoffDelay with
// others waiting.
func (f *fanIn) Spread() { f.spreadPending() }

// take takes the queue as the batch; the batch's spent array becomes the
// queue. The fanIn's mu is held.
func (p *fanPool) take() {
	spent := p.batch[:0]
	if p.spare != nil {
		spent, p.spare = p.spare, nil
	}
	p.queue, p.batch, p.pos = spent, p.queue, 0
	if p.blocked > 0 {
		p.room.Broadcast()
	}
}

// flush forwards, without waiting, the pooled children's events that
// arrived while the consumer ran a child of its own, noting the ends it
// meets for next. It takes the queue once: what the pooled children send
// while it forwards waits for the consumer's child's next event, or its
// end, so children that stream faster than the consumer takes their
// events cannot hold that child's event back for ever. It is false when
// the consumer stopped. It runs only while children run on the pool.
func (f *fanIn) flush(yield func(helikon.Event) bool) bool {
	p := f.pool.Load()
	if p.pos == len(p.batch) {
		f.mu.Lock()
		if len(p.queue) == 0 {
			f.mu.Unlock()
			return true
		}
		p.take()
		f.mu.Unlock()
	}
	for p.pos < len(p.batch) {
		e := p.batch[p.pos]
		p.batch[p.pos] = childEvent{}
		p.pos++
		if e.ev == nil {
			f.pooled.Add(-1)
			f.ended = append(f.ended, e.i)
			continue
		}
		if !yield(e.ev) {
			return false
		}
	}
	return true
}

// runInline runs child i on the consumer's goroutine, announced by an
// AgentUpdated, its events going straight to yield, and settles its
// outcome in f.outs[i]. A panic of the child fails it alone, as on a pool
// goroutine; a panic of yield (the consumer's loop body) is the
// consumer's and goes on up. It is false when the consumer stopped.
func (f *fanIn) runInline(i int, yield func(helikon.Event) bool) (ok bool) {
	c := &f.kids[i]
	if !f.direct(announce(c.agent)) {
		return false
	}
	in := &f.inline
	*in = inlineRun{o: &f.outs[i], yield: yield, ok: true, stamp: !c.stamps}
	if f.forward == nil {
		f.forward = f.forwardInline()
	}
	func() {
		defer func() {
			if in.inYield {
				return // not recovered: the panic goes on to the consumer
			}
			if r := recover(); r != nil {
				childPanicked(in.o, c.agent, r)
			}
		}()
		streamChild(f.ctx, c.agent, c.rc, c.input, c.from, f.forward)
	}()
	in.o.End(c.agent.Name())
	ok = in.ok
	// A call of forward after the child's end is refused. The rest stays:
	// it points into this run only, and clearing pointers costs write
	// barriers while the collector marks.
	in.ok = false
	return ok
}

// inlineRun is the child a fanIn runs on the consumer's goroutine.
type inlineRun struct {
	o     *helikon.ChildOutcome
	yield func(helikon.Event) bool
	// stamp is set for a child that does not stamp its events.
	stamp   bool
	inYield bool // yield is running: a panic now is the consumer's
	ok      bool // false once yield refused an event
}

// forwardInline returns the yield of the child f runs inline: it folds
// each event into the child's outcome and passes it on, after the pooled
// children's events that came meanwhile, unless the consumer has stopped.
// A closure rather than a method value, whose wrapper would cost every
// event a call.
func (f *fanIn) forwardInline() func(helikon.Event) bool {
	return func(ev helikon.Event) bool {
		in := &f.inline
		if !in.ok {
			return false
		}
		if !in.o.See(ev) {
			return true
		}
		if in.stamp {
			ev = helikon.Stamp(ev)
		}
		in.inYield = true
		in.ok = (f.pooled.Load() == 0 || f.flush(in.yield)) && f.direct(ev)
		in.inYield = false
		return in.ok
	}
}

// childPanicked fails a child whose run panicked with r: it fails alone
// rather than taking the process down from a goroutine its caller cannot
// recover in.
func childPanicked(o *helikon.ChildOutcome, agent helikon.Agent, r any) {
	slog.Error("helikon: sub-agent panicked", "agent", agent.Name(), "panic", r, "stack", string(debug.Stack()))
	o.See(helikon.RunFailed{Err: agentErrorf(helikon.KindOther, agent.Name(), "panic: %v", r)})
}

// send queues e for the consumer, waiting while the queue is full and the
// consumer takes it; it refuses e (false) once the consumer has gone.
func (f *fanIn) send(e childEvent) bool {
	p := f.pool.Load()
	f.mu.Lock()
	for len(p.queue) >= p.bound && !f.inlining && !f.stopped {
		p.blocked++
		p.room.Wait()
		p.blocked--
	}
	if f.stopped {
		f.mu.Unlock()
		return false
	}
	p.queue = append(p.queue, e)
	wake := p.waiting
	p.waiting = false
	f.mu.Unlock()
	if wake {
		p.wake <- struct{}{} // never blocks: one sender sees waiting per wait
	}
	return true
}

// close stops the children still running and waits for every child handed
// to the pool to end; a child still pending never starts.
func (f *fanIn) close() {
	if !f.shared() {
		f.stopped = true
		return
	}
	f.mu.Lock()
	f.stopped = true
	// Set under mu, and never after stopped: no child goes to the pool
	// once this has read it.
	p := f.pool.Load()
	if p != nil {
		p.room.Broadcast()
	}
	f.mu.Unlock()
	if f.spread != nil {
		// Disarmed, it passes on to a later fan-out still running.
		f.spread.SetTarget(nil)
		spreaders.Put(f.spread)
	}
	if p == nil {
		return
	}
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
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
		if !b.o.See(ev) {
			return true
		}
		if !b.c.stamps {
			ev = helikon.Stamp(ev)
		}
		return b.c.f.send(childEvent{i: b.c.i, ev: ev})
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
	p := f.pool.Load()
	b.c, b.o = c, &f.outs[c.i]
	defer func() {
		if r := recover(); r != nil {
			childPanicked(b.o, c.agent, r)
		}
		b.o.End(c.agent.Name())
		f.send(childEvent{i: c.i})
		b.c, b.o = nil, nil
		p.wg.Done()
	}()
	streamChild(p.ctx, c.agent, c.rc, c.input, c.from, b.forward)
}
