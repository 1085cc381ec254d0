package redislog

import (
	"context"
	"sync"

	"github.com/paigasus/helikon/server"
)

// A replica serves the tails of the runs it drives from the records it
// appends, kept in process while the run is running here, instead of
// reading each batch back from Redis: an SSE run's stream then costs no
// XREAD per event, only the run's writes and one read at its end. Once the
// run pauses or ends (Update), or when a tail starts before what this
// replica appended (a continuation's tail from the start), tails read
// Redis as before.

// localRun is a run this replica drives: the records it appended since it
// started driving it (base is the position before the first).
type localRun struct {
	mu       sync.Mutex
	base     int64
	recs     []server.Record
	released bool // Update was called: read Redis from here on
	waiters  map[chan struct{}]struct{}
}

type localRuns struct {
	mu   sync.Mutex
	runs map[string]*localRun
}

// drive starts keeping runID's records, appended after position base.
func (l *localRuns) drive(runID string, base int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = make(map[string]*localRun)
	}
	l.runs[runID] = &localRun{base: base, waiters: make(map[chan struct{}]struct{})}
}

func (l *localRuns) get(runID string) *localRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[runID]
}

// appended keeps rec, which Redis has stored, and wakes the run's tails.
func (l *localRuns) appended(runID string, rec server.Record) {
	r := l.get(runID)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if int64(len(r.recs))+r.base+1 != rec.Seq {
		r.released = true // not the next record: let Redis say
	} else {
		r.recs = append(r.recs, rec)
	}
	r.wake()
}

// release stops keeping runID's records (it paused or ended) and sends its
// tails to Redis for the rest.
func (l *localRuns) release(runID string) {
	l.mu.Lock()
	r := l.runs[runID]
	delete(l.runs, runID)
	l.mu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = true
	r.wake()
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
// released (true: go on in Redis) or yield stops or ctx ends (false).
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
		recs, released := r.recs, r.released
		r.mu.Unlock()
		if n := int64(len(recs)) + r.base; n > *after {
			batch := recs[*after-r.base : len(recs) : len(recs)]
			*after = n
			if !yield(batch, nil) {
				return false
			}
			continue
		}
		if released {
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
