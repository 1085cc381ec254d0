package helikon

import (
	"context"
	"iter"
	"log/slog"
	"sync"
	"time"
)

// DefaultCancelGrace is how long a cancelled run waits for a tool call or a
// model stream that ignores its context before it ends without it (see
// [RunConfig].CancelGrace).
const DefaultCancelGrace = time.Second

// grace returns the run's cancel grace period; ok is false when the run
// waits without bound (a negative CancelGrace).
func (c RunConfig) grace() (d time.Duration, ok bool) {
	switch {
	case c.CancelGrace < 0:
		return 0, false
	case c.CancelGrace == 0:
		return DefaultCancelGrace, true
	}
	return c.CancelGrace, true
}

// stragglers accounts for the goroutines that runs gave up on: a tool call
// or a model stream still running after its run ended, because it did not
// honour its context within the grace period. The registry is their owner:
// each one reports here when it finally returns, and [WaitStragglers] waits
// for them.
var stragglers struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to zero
}

func stragglerAdd(n int) {
	if n <= 0 {
		return
	}
	stragglers.mu.Lock()
	if stragglers.n == 0 {
		stragglers.idle = make(chan struct{})
	}
	stragglers.n += n
	stragglers.mu.Unlock()
}

func stragglerDone() {
	stragglers.mu.Lock()
	stragglers.n--
	if stragglers.n == 0 {
		close(stragglers.idle)
	}
	stragglers.mu.Unlock()
}

// Stragglers returns how many tool calls and model streams of ended runs are
// still running because they ignored their context past the run's
// [RunConfig].CancelGrace. Their results were dropped; each is counted until
// it returns. A number that only grows points at a tool or model that never
// honours cancellation.
func Stragglers() int {
	stragglers.mu.Lock()
	defer stragglers.mu.Unlock()
	return stragglers.n
}

// WaitStragglers waits until every straggler (see [Stragglers]) has
// returned, or ctx ends. A server's graceful shutdown calls it last.
func WaitStragglers(ctx context.Context) error {
	stragglers.mu.Lock()
	if stragglers.n == 0 {
		stragglers.mu.Unlock()
		return nil
	}
	idle := stragglers.idle
	stragglers.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// graceTimer starts the grace period once the run's context ends: fire
// returns nil until then, and then the channel the period's end is sent on.
type graceTimer struct {
	d     time.Duration
	bound bool
	t     *time.Timer
}

func newGraceTimer(cfg RunConfig) *graceTimer {
	d, ok := cfg.grace()
	return &graceTimer{d: d, bound: ok}
}

// start begins the period (once); a run that waits without bound never
// ends it.
func (g *graceTimer) start() {
	if g.bound && g.t == nil {
		g.t = time.NewTimer(g.d)
	}
}

// expired is the channel the period's end arrives on; nil (blocks forever)
// before start.
func (g *graceTimer) expired() <-chan time.Time {
	if g.t == nil {
		return nil
	}
	return g.t.C
}

func (g *graceTimer) stop() {
	if g.t != nil {
		g.t.Stop()
	}
}

// round tracks the calls of one tool round that run on workers, so that a
// driver that gives up on them hands exactly the ones still running to the
// straggler registry.
type round struct {
	mu        sync.Mutex
	running   int
	abandoned bool
	// gone is closed when the driver gives up, so a straggler never blocks
	// on reporting an event nobody reads.
	gone chan struct{}
}

func newRound(n int) *round { return &round{running: n, gone: make(chan struct{})} }

// done records that a call returned.
func (r *round) done() {
	r.mu.Lock()
	r.running--
	if r.abandoned {
		stragglerDone()
	}
	r.mu.Unlock()
}

// abandon gives up on the calls still running and returns how many there
// were.
func (r *round) abandon() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abandoned = true
	close(r.gone)
	stragglerAdd(r.running)
	return r.running
}

// modelEvent is one element of a model stream moved across goroutines.
type modelEvent struct {
	ev  ModelEvent
	err error
}

// maxModelBatch bounds how many events the model's goroutine queues before
// it waits for the consumer.
const maxModelBatch = 256

// modelQueue carries a model stream's events from the model's goroutine to
// the consumer's. Events are visible to the consumer as soon as they are
// queued (a slow model never holds back one already sent); a busy consumer
// takes them in batches, so a fast stream costs a lock per event and a
// wake-up per batch.
//
// It also records whether the model's worker returned and whether the
// driver gave up on it: one allocation for the stream's shared state rather
// than one per variable the two goroutines share.
type modelQueue struct {
	mu     sync.Mutex
	items  []modelEvent
	closed bool
	ready  chan struct{} // a token when items or closed changed
	space  chan struct{} // a token when the consumer drained the queue

	// wmu guards returned and abandoned; finished is closed when the
	// model's worker returns.
	wmu       sync.Mutex
	returned  bool
	abandoned bool
	finished  chan struct{}
}

// firstBatch is the capacity the queue starts with: enough for a model
// turn of a tool call or a short answer (a delta or two, usage, finish)
// without regrowing, and it is reused for every later batch.
const firstBatch = 8

func newModelQueue() *modelQueue {
	return &modelQueue{
		items:    make([]modelEvent, 0, firstBatch),
		ready:    make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
		finished: make(chan struct{}),
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// push queues e, waiting while the queue is full; false means ctx ended.
func (q *modelQueue) push(ctx context.Context, e modelEvent) bool {
	q.mu.Lock()
	q.items = append(q.items, e)
	n := len(q.items)
	q.mu.Unlock()
	signal(q.ready)
	for n >= maxModelBatch {
		select {
		case <-q.space:
		case <-ctx.Done():
			return false
		}
		q.mu.Lock()
		n = len(q.items)
		q.mu.Unlock()
	}
	return true
}

func (q *modelQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal(q.ready)
}

// take swaps the queued events for spare and reports whether the stream is
// over.
func (q *modelQueue) take(spare []modelEvent) (batch []modelEvent, closed bool) {
	q.mu.Lock()
	batch, q.items = q.items, spare
	closed = q.closed
	q.mu.Unlock()
	signal(q.space)
	return batch, closed
}

// modelStream returns the model's stream for req. When the run can be
// cancelled, the model runs on one of the run's workers, so that a model
// that ignores its context cannot hold the run past the grace period: the
// stream then ends with the context's error and the worker is left to the
// straggler registry. A run that cannot be cancelled reads the model
// directly, with no goroutine and no queue.
func (d *driver) modelStream(ctx context.Context, req *ModelRequest) iter.Seq2[ModelEvent, error] {
	if ctx.Done() == nil {
		return d.a.model.Invoke(ctx, req)
	}
	return func(yield func(ModelEvent, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		q := newModelQueue()
		d.workers.grow(1)
		d.workers.jobs <- func() {
			defer func() {
				q.wmu.Lock()
				q.returned = true
				if q.abandoned {
					stragglerDone()
				}
				q.wmu.Unlock()
				close(q.finished)
			}()
			defer q.close()
			for ev, err := range d.a.model.Invoke(ctx, req) {
				if !q.push(ctx, modelEvent{ev, err}) {
					return
				}
			}
		}
		g := newGraceTimer(d.cfg)
		defer g.stop()
		done := ctx.Done()
		var spare []modelEvent
		for {
			select {
			case <-q.ready:
				batch, closed := q.take(spare)
				for _, e := range batch {
					if !yield(e.ev, e.err) {
						cancel()
						d.leaveModel(g, q)
						return
					}
				}
				if closed {
					<-q.finished
					return
				}
				clear(batch)
				spare = batch[:0]
			case <-done:
				done = nil
				g.start()
			case <-g.expired():
				d.abandonModel(q)
				yield(nil, ctx.Err())
				return
			}
		}
	}
}

// leaveModel waits, after the consumer has gone, for the model to notice
// its cancelled context: at most the grace period, then the model's worker
// is left to the straggler registry.
func (d *driver) leaveModel(g *graceTimer, q *modelQueue) {
	g.start()
	if !g.bound {
		<-q.finished
		return
	}
	select {
	case <-q.finished:
	case <-g.expired():
		d.abandonModel(q)
	}
}

// abandonModel hands a model stream that outlived its grace period to the
// straggler registry, unless it returned in the meantime.
func (d *driver) abandonModel(q *modelQueue) {
	q.wmu.Lock()
	defer q.wmu.Unlock()
	if q.returned {
		return
	}
	q.abandoned = true
	d.workers.abandoned = true
	stragglerAdd(1)
	provider, model := DescribeModel(d.a.model)
	grace, _ := d.cfg.grace()
	slog.Warn("helikon: a model stream ignored cancellation; the run ended without it",
		"agent", d.a.name, "provider", provider, "model", model, "grace", grace)
}

// abandonCalls gives up on the calls of r still running and says so.
func (d *driver) abandonCalls(r *round, calls []ToolCall) {
	n := r.abandon()
	if n == 0 {
		return
	}
	d.workers.abandoned = true
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	grace, _ := d.cfg.grace()
	slog.Warn("helikon: tool calls ignored cancellation; the run ended without them",
		"agent", d.a.name, "still_running", n, "round", names, "grace", grace)
}
