package helikon

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/paigasus/helikon/internal/workpool"
)

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
// returned, or ctx ends. Stragglers belong to the process, not to one
// server or runner, so a program calls it last in its graceful shutdown,
// after its servers have stopped (server.Server.Shutdown does not wait for
// them: it stops only its own runs).
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

// graceTimer is the grace period, started once the run's context ends.
type graceTimer struct {
	d     time.Duration
	bound bool
	t     *time.Timer
}

func newGraceTimer(cfg RunConfig) graceTimer {
	d, ok := cfg.grace()
	return graceTimer{d: d, bound: ok}
}

// start begins the period (once); a run that waits without bound never
// ends it.
func (g *graceTimer) start() {
	if g.bound && g.t == nil {
		g.t = time.NewTimer(g.d)
	}
}

// expired is the channel the period's end arrives on; nil before start.
func (g *graceTimer) expired() <-chan time.Time {
	if g.t == nil {
		return nil
	}
	return g.t.C
}

// wait starts the period and waits for done, at most until the period
// ends; false means it ended first. A run that waits without bound waits
// for done.
func (g *graceTimer) wait(done <-chan struct{}) bool {
	g.start()
	select {
	case <-done:
		return true
	case <-g.expired():
		return false
	}
}

func (g *graceTimer) stop() {
	if g.t != nil {
		g.t.Stop()
	}
}

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
// A run keeps one queue for all its turns, so a turn's stream allocates no
// shared state: it is the job a worker runs (the model's side), and records
// whether that side returned and whether the driver gave up on it.
type modelQueue struct {
	// The model's side: the stream to read and the context it runs in.
	d   *driver
	ctx context.Context
	req *ModelRequest

	mu     sync.Mutex
	items  []modelEvent
	closed bool
	// spare is the consumer's batch buffer, swapped with items at each
	// take and kept across turns.
	spare []modelEvent
	ready chan struct{} // a token when items or closed changed
	space chan struct{} // a token when the consumer drained the queue

	// wmu guards returned and abandoned; finished gets a token when the
	// model's side returns.
	wmu       sync.Mutex
	returned  bool
	abandoned bool
	finished  chan struct{}
}

// firstBatch is the capacity the queue starts with: enough for a model
// turn of a tool call or a short answer (a delta or two, usage, finish)
// without regrowing, and it is reused for every later batch.
const firstBatch = 8

func newModelQueue(d *driver) *modelQueue {
	return &modelQueue{
		d:        d,
		items:    make([]modelEvent, 0, firstBatch),
		spare:    make([]modelEvent, 0, firstBatch),
		ready:    make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
		finished: make(chan struct{}, 1),
	}
}

// reset readies the queue of a turn that ended for the next one. Stale
// tokens left in ready or space only cost a spurious wake-up.
func (q *modelQueue) reset(ctx context.Context, req *ModelRequest) {
	q.ctx, q.req = ctx, req
	q.mu.Lock()
	clear(q.items)
	q.items = q.items[:0]
	q.closed = false
	q.mu.Unlock()
	q.wmu.Lock()
	q.returned = false
	q.wmu.Unlock()
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (q *modelQueue) Run() {
	defer func() {
		q.wmu.Lock()
		q.returned = true
		if q.abandoned {
			stragglerDone()
		}
		q.wmu.Unlock()
		q.finished <- struct{}{}
	}()
	defer q.close()
	// A model is user code too; its panic on this worker would take the
	// process down with no caller able to recover it, so it fails the turn.
	defer func() {
		if r := recover(); r != nil {
			q.push(modelEvent{err: q.d.modelPanicked(r)})
		}
	}()
	for ev, err := range q.d.a.model.Invoke(q.ctx, q.req) {
		if !q.push(modelEvent{ev, err}) {
			return
		}
	}
}

// push queues e, waiting while the queue is full; false means the turn's
// context ended.
func (q *modelQueue) push(e modelEvent) bool {
	q.mu.Lock()
	q.items = append(q.items, e)
	n := len(q.items)
	q.mu.Unlock()
	signal(q.ready)
	for n >= maxModelBatch {
		select {
		case <-q.space:
		case <-q.ctx.Done():
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

func (q *modelQueue) take(spare []modelEvent) (batch []modelEvent, closed bool) {
	q.mu.Lock()
	batch, q.items = q.items, spare
	closed = q.closed
	q.mu.Unlock()
	signal(q.space)
	return batch, closed
}

// modelPanicked logs a model's panic and returns the error that fails the
// turn: a model is user code, and its panic fails the run, not the process.
func (d *driver) modelPanicked(r any) *ModelError {
	p := d.rc.redactText(fmt.Sprint(r))
	slog.Error("helikon: model panicked", "agent", d.a.name, "panic", p, "stack", string(debug.Stack()))
	provider, _ := DescribeModel(d.a.model)
	return &ModelError{Kind: ModelOther, Provider: provider, Message: "model panicked: " + p}
}

// modelStream returns the model's stream for req. When the run can be
// cancelled, the model runs on a worker, so that a model that ignores its
// context cannot hold the run past the grace period: the stream then ends
// with the context's error and the worker is left to the straggler
// registry. A run that cannot be cancelled, or a model that promises to
// honour cancellation ([ModelCapabilities].HonoursCancellation), is read
// directly, with no goroutine and no queue.
func (d *driver) modelStream(ctx context.Context, req *ModelRequest) iter.Seq2[ModelEvent, error] {
	if ctx.Done() == nil || d.a.model.Capabilities().HonoursCancellation {
		return d.a.model.Invoke(ctx, req)
	}
	return func(yield func(ModelEvent, error) bool) {
		ctx, cancel, owned := d.stopper(ctx)
		if owned {
			defer cancel()
		}
		q := d.queue
		if q == nil {
			q = newModelQueue(d)
			d.queue = q
		}
		q.reset(ctx, req)
		workpool.Submit(q)
		g := newGraceTimer(d.cfg)
		defer g.stop()
		done := ctx.Done()
		spare := q.spare
		for {
			select {
			case <-q.ready:
				batch, closed := q.take(spare)
				for _, e := range batch {
					if !yield(e.ev, e.err) {
						cancel()
						d.leaveModel(&g, q)
						return
					}
				}
				clear(batch)
				spare = batch[:0]
				if closed {
					<-q.finished
					q.spare = spare
					return
				}
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
	if !g.wait(q.finished) {
		d.abandonModel(q)
	}
}

// abandonModel hands a model stream that outlived its grace period to the
// straggler registry, unless it returned in the meantime. The run ends
// after it, so its queue is not reused.
func (d *driver) abandonModel(q *modelQueue) {
	q.wmu.Lock()
	defer q.wmu.Unlock()
	if q.returned {
		return
	}
	q.abandoned = true
	d.queue = nil
	stragglerAdd(1)
	provider, model := DescribeModel(d.a.model)
	grace, _ := d.cfg.grace()
	slog.Warn("helikon: a model stream ignored cancellation; the run ended without it",
		"agent", d.a.name, "provider", provider, "model", model, "grace", grace)
}

func (d *driver) abandonCalls(r *liveRound, calls []ToolCall) {
	n := r.abandon()
	close(r.gone)
	if n == 0 {
		return
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	grace, _ := d.cfg.grace()
	slog.Warn("helikon: tool calls ignored cancellation; the run ended without them",
		"agent", d.a.name, "still_running", n, "round", names, "grace", grace)
}
