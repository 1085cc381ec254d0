package helikon

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/paigasus/helikon/internal/batchq"
	"github.com/paigasus/helikon/internal/grace"
	"github.com/paigasus/helikon/internal/straggler"
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

// Stragglers returns how many tool calls and model streams of ended runs are
// still running because they ignored their context past the run's
// [RunConfig].CancelGrace. Their results were dropped; each is counted until
// it returns (the process-wide registry is their owner). A number that only
// grows points at a tool or model that never honours cancellation.
func Stragglers() int { return straggler.Count() }

// WaitStragglers waits until every straggler (see [Stragglers]) has
// returned, or ctx ends. Stragglers belong to the process, not to one
// server or runner, so a program calls it last in its graceful shutdown,
// after its servers have stopped (server.Server.Shutdown does not wait for
// them: it stops only its own runs).
func WaitStragglers(ctx context.Context) error { return straggler.Wait(ctx) }

// newGraceTimer is the run's grace period, to start once its context ends.
func newGraceTimer(cfg RunConfig) grace.Timer { return grace.New(cfg.grace()) }

type modelEvent struct {
	ev  ModelEvent
	err error
}

// maxModelBatch bounds how many events the model's goroutine queues before
// it waits for the consumer.
const maxModelBatch = 256

// firstBatch is the capacity the queue starts with: enough for a model
// turn of a tool call or a short answer (a delta or two, usage, finish)
// without regrowing, and it is reused for every later batch.
const firstBatch = 8

// modelQueue carries a model stream's events from the model's goroutine to
// the consumer's. A run keeps one queue for all its turns, so a turn's
// stream allocates no shared state: it is the job a worker runs (the
// model's side), and records whether that side returned and whether the
// driver gave up on it.
type modelQueue struct {
	*batchq.Queue[modelEvent]
	// The model's side: the stream to read and the context it runs in.
	d   *driver
	ctx context.Context
	req *ModelRequest

	// wmu guards returned and abandoned; finished gets a token when the
	// model's side returns.
	wmu       sync.Mutex
	returned  bool
	abandoned bool
	finished  chan struct{}
}

func newModelQueue(d *driver) *modelQueue {
	return &modelQueue{
		Queue:    batchq.New[modelEvent](firstBatch, maxModelBatch),
		d:        d,
		finished: make(chan struct{}, 1),
	}
}

// reset readies the queue of a turn that ended for the next one.
func (q *modelQueue) reset(ctx context.Context, req *ModelRequest) {
	q.ctx, q.req = ctx, req
	q.Reset()
	q.wmu.Lock()
	q.returned = false
	q.wmu.Unlock()
}

func (q *modelQueue) Run() {
	defer func() {
		q.wmu.Lock()
		q.returned = true
		if q.abandoned {
			straggler.Done()
		}
		q.wmu.Unlock()
		q.finished <- struct{}{}
	}()
	defer q.Close()
	// A model is user code too; its panic on this worker would take the
	// process down with no caller able to recover it, so it fails the turn.
	defer func() {
		if r := recover(); r != nil {
			q.Push(q.ctx, modelEvent{err: q.d.modelPanicked(r)})
		}
	}()
	for ev, err := range q.d.a.model.Invoke(q.ctx, q.req) {
		if !q.Push(q.ctx, modelEvent{ev, err}) {
			return
		}
	}
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
		defer g.Stop()
		done := ctx.Done()
		for {
			select {
			case <-q.Ready():
				batch, closed := q.Take()
				for _, e := range batch {
					if !yield(e.ev, e.err) {
						cancel()
						d.leaveModel(&g, q)
						return
					}
				}
				q.Release(batch)
				if closed {
					<-q.finished
					return
				}
			case <-done:
				done = nil
				g.Start()
			case <-g.Expired():
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
func (d *driver) leaveModel(g *grace.Timer, q *modelQueue) {
	if !g.Wait(q.finished) {
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
	straggler.Add(1)
	provider, model := DescribeModel(d.a.model)
	period, _ := d.cfg.grace()
	slog.Warn("helikon: a model stream ignored cancellation; the run ended without it",
		"agent", d.a.name, "provider", provider, "model", model, "grace", period)
}

func (d *driver) abandonCalls(r *liveRound, calls []ToolCall) {
	n := r.Abandon()
	d.live = nil
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
