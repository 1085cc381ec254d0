package redislog

import (
	"context"
	"errors"
	"sync"
)

// A status change Update could not store because Redis was unreachable is
// kept, the newest per run, and stored once a probe finds Redis back
// (circuit.go). Dropped, a run's end (or pause) would never reach Redis
// while this replica lives: the run, running there with a live lease,
// would read as running for ever, on every replica. Close drops what is
// kept: the lease goes with it, and the runs read as interrupted.

// keptStatus holds the status changes to store once Redis is back.
type keptStatus struct {
	mu  sync.Mutex
	ups map[string]*update // by run id
}

// storeStatus writes up, runID's status change, or keeps it for when
// Redis is back if Redis is unreachable. A write that fails for another
// reason is not kept. It returns the write's error, nil only once stored.
func (l *Log) storeStatus(ctx context.Context, runID string, up *update) error {
	var err error
	for range 2 {
		err = l.writeNow(ctx, runID, nil, up)
		if !keepable(err) || l.keepStatus(runID, up) {
			return err
		}
		// A probe found Redis back between the write and now, and has
		// stored what it found kept: write again.
	}
	return err
}

// keepable reports whether err, a write's failure, says Redis was
// unreachable.
func keepable(err error) bool {
	return err != nil && (errors.Is(err, ErrUnavailable) || unreachable(err))
}

// keepStatus keeps up for the probe to store, unless the circuit is
// closed (it reports false): the probe takes what is kept only after it
// closes the circuit, so what is kept while it is open is not missed.
func (l *Log) keepStatus(runID string, up *update) bool {
	l.kept.mu.Lock()
	defer l.kept.mu.Unlock()
	if l.circuit.open() == nil {
		return false
	}
	if l.kept.ups == nil {
		l.kept.ups = make(map[string]*update)
	}
	l.kept.ups[runID] = up
	return true
}

// storeKept stores the status changes kept while Redis was unreachable;
// the probe calls it once Redis answers. A change Redis refuses (another
// replica ended or claimed the run meanwhile, or a newer change of the
// run was stored first: status_seq.go) is dropped; one that finds Redis
// unreachable again is kept again, unless a newer one was.
func (l *Log) storeKept() {
	l.kept.mu.Lock()
	ups := l.kept.ups
	l.kept.ups = nil
	l.kept.mu.Unlock()
	for id, up := range ups {
		ctx, cancel := context.WithTimeout(l.life, probeTimeout)
		err := l.writeNow(ctx, id, nil, up)
		cancel()
		if !keepable(err) || l.life.Err() != nil {
			continue
		}
		l.kept.mu.Lock()
		if l.kept.ups == nil {
			l.kept.ups = make(map[string]*update)
		}
		if _, newer := l.kept.ups[id]; !newer {
			l.kept.ups[id] = up
		}
		l.kept.mu.Unlock()
	}
}
