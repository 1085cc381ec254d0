// Package batchq carries values from one producer goroutine to one
// consumer goroutine. A value is visible to the consumer as soon as it is
// pushed (a slow producer never holds back one already sent), and a busy
// consumer takes them in batches, so a fast producer costs a lock per
// value and a wake-up per batch. A queue is reused across streams
// ([Queue.Reset]), so a stream allocates nothing once its buffers have
// grown.
package batchq

import (
	"context"
	"sync"
)

// Queue is a batching queue of T between one producer and one consumer.
type Queue[T any] struct {
	max int // the producer waits while this many values are queued

	mu     sync.Mutex
	items  []T
	closed bool
	// spare is the consumer's batch buffer, handed back by Release and
	// swapped in for items at the next Take; nil while the consumer holds
	// it, so a consumer that never gives a batch back cannot have the
	// producer append into the batch it reads.
	spare []T
	ready chan struct{} // a token when items or closed changed
	space chan struct{} // a token when the consumer drained the queue
}

// New returns a queue whose buffers start with room for first values and
// whose producer waits while max values are queued.
func New[T any](first, max int) *Queue[T] {
	return &Queue[T]{
		max:   max,
		items: make([]T, 0, first),
		spare: make([]T, 0, first),
		ready: make(chan struct{}, 1),
		space: make(chan struct{}, 1),
	}
}

// Reset readies the queue of a stream that ended for the next one. Stale
// tokens left in the channels only cost a spurious wake-up.
func (q *Queue[T]) Reset() {
	q.mu.Lock()
	clear(q.items)
	q.items = q.items[:0]
	q.closed = false
	q.mu.Unlock()
}

// Push queues v, waiting while the queue is full; false means ctx ended
// first (v is queued either way).
func (q *Queue[T]) Push(ctx context.Context, v T) bool {
	q.mu.Lock()
	q.items = append(q.items, v)
	n := len(q.items)
	q.mu.Unlock()
	signal(q.ready)
	for n >= q.max {
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

// Close marks the stream ended: the consumer's next Take reports it.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal(q.ready)
}

// Ready gets a token when there may be values to take or the stream closed.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Take returns what is queued and whether the stream has closed. The
// consumer hands the batch back with Release once it is done with it;
// Take and Release are the consumer's alone.
func (q *Queue[T]) Take() (batch []T, closed bool) {
	q.mu.Lock()
	batch, q.items, q.spare = q.items, q.spare, nil
	closed = q.closed
	q.mu.Unlock()
	signal(q.space)
	return batch, closed
}

// Release hands back a batch Take returned, cleared, as the buffer the
// producer fills after the next Take.
func (q *Queue[T]) Release(batch []T) {
	clear(batch)
	q.spare = batch[:0] // only the consumer touches spare: no lock
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
