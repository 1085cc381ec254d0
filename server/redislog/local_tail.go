package redislog

import (
	"context"
	"errors"
	"sync"

	"github.com/paigasus/helikon/server"
)

// A replica serves the tails of the runs it drives from the records it
// appends, kept in process while the run is running here, instead of
// reading each batch back from Redis: an SSE run's stream then costs no
// XREAD per event. A record reaches these tails only once Redis has stored
// it (see batch.go), so what a client sees is what any replica can replay.
// Once the run pauses or ends (Update), or when a tail starts before what
// this replica appended (a continuation's tail from the start), tails read
// Redis as before.

// localRun is a run this replica drives: the records it appended since it
// started driving it (base is the position before the first), those Redis
// stored (recs) and those still on their way (pending).
type localRun struct {
	id string

	mu      sync.Mutex
	base    int64
	recs    []server.Record // stored: what tails see
	pending []server.Record // accepted by Append, not yet sent
	bytes   int             // of pending, counted against the log's bound
	last    int64           // position of the last record Append accepted
	update  *update         // a status change queued behind pending
	queued  bool            // on its flusher's queue
	flusher int             // which of the Log's flushers sends its writes
	// err is the first write that failed: tails end with it, and Append
	// refuses the run's records from then on.
	err      error
	released bool // Update was called: read Redis from here on
	waiters  map[chan struct{}]struct{}
}

type localRuns struct {
	mu   sync.Mutex
	runs map[string]*localRun
	next int // the flusher of the next run driven
}

// drive starts keeping runID's records, appended after position base.
func (l *localRuns) drive(runID string, base int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = make(map[string]*localRun)
	}
	l.runs[runID] = &localRun{id: runID, base: base, last: base, flusher: l.next, waiters: make(map[chan struct{}]struct{})}
	l.next = (l.next + 1) % flushers
}

func (l *localRuns) get(runID string) *localRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[runID]
}

// forget stops driving r: later calls on its run go to Redis directly.
func (l *localRuns) forget(r *localRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs[r.id] == r {
		delete(l.runs, r.id)
	}
}

// stored makes recs, which Redis has stored, visible to r's tails; with
// end, r's tails go on in Redis after them.
func (r *localRun) stored(recs []server.Record, end bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, recs...)
	r.released = r.released || end
	r.wake()
}

// failed records that Redis stored recs but not the rest of a batch,
// for err. Every record r holds unsent is lost with the batch, so a
// [*WriteError] is widened to the last record Append accepted, and the
// run's writes fail with it from then on. A run that has ended (another
// replica found it orphaned) or is gone sends its tails to Redis, which
// says what became of it; other failures end them with err.
func (r *localRun) failed(recs []server.Record, err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, recs...)
	if we, ok := errors.AsType[*WriteError](err); ok && we.From <= we.To {
		we.To = max(we.To, r.last)
	}
	if r.err == nil {
		r.err = err
	}
	if toRedis(err) {
		r.released = true
	}
	r.wake()
	return r.err
}

// toRedis reports whether err, a write's failure, sends the run's tails
// to Redis: the run ended (another replica found it orphaned), is gone,
// or is another replica's now, and Redis says what became of it.
func toRedis(err error) bool {
	return errors.Is(err, server.ErrRunEnded) || errors.Is(err, server.ErrRunNotFound) || errors.Is(err, ErrStaleStatus)
}

// wake pokes every tail; r.mu is held.
func (r *localRun) wake() {
	for ch := range r.waiters {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// tail yields r's records after position *after, updating it, until r is
// released (true: go on in Redis) or yield stops, ctx ends or a write
// fails (false).
func (r *localRun) tail(ctx context.Context, after *int64, yield func([]server.Record, error) bool) bool {
	wake := make(chan struct{}, 1)
	r.mu.Lock()
	r.waiters[wake] = struct{}{}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiters, wake)
		r.mu.Unlock()
	}()
	for {
		r.mu.Lock()
		// Records are only appended, so the batch stays valid unlocked.
		recs, released, err := r.recs, r.released, r.err
		r.mu.Unlock()
		if n := int64(len(recs)) + r.base; n > *after {
			batch := recs[*after-r.base : len(recs) : len(recs)]
			*after = n
			if !yield(batch, nil) {
				return false
			}
			continue
		}
		switch {
		case err != nil && !toRedis(err):
			// Records were lost: the tail ends with the loss, also
			// once Update has released the run (with Redis found
			// unreachable, it does so at once).
			yield(nil, err)
			return false
		case released:
			return true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return false
		}
	}
}

// writeErr returns the write failure that lost records of r, if any.
func (r *localRun) writeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
