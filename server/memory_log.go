package server

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"
)

// MemoryLog is the in-process [EventLog], the server's default: runs live
// as long as the process, bounded by the server's retention settings.
type MemoryLog struct {
	mu   sync.RWMutex
	runs map[string]*memRun
	// done lists finished runs in the order they finished, for pruning.
	done []string
}

var _ EventLog = (*MemoryLog)(nil)

type memRun struct {
	mu      sync.Mutex
	info    RunInfo
	records []Record
	// waiters are the channels of the run's tails, each poked (never
	// blocking) when a record lands or the run finishes.
	waiters []chan struct{}
}

// NewMemoryLog returns an empty in-memory event log.
func NewMemoryLog() *MemoryLog { return &MemoryLog{runs: make(map[string]*memRun)} }

// Create registers a new run.
func (l *MemoryLog) Create(_ context.Context, info RunInfo) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.runs[info.ID]; ok {
		return fmt.Errorf("%w: %s", ErrRunExists, info.ID)
	}
	l.runs[info.ID] = &memRun{info: info}
	return nil
}

func (l *MemoryLog) run(id string) (*memRun, error) {
	l.mu.RLock()
	r := l.runs[id]
	l.mu.RUnlock()
	if r == nil {
		return nil, fmt.Errorf("%w: %s", ErrRunNotFound, id)
	}
	return r, nil
}

// Append stores the run's next record.
func (l *MemoryLog) Append(_ context.Context, runID string, rec Record) error {
	r, err := l.run(runID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.info.Status.Live() {
		return fmt.Errorf("server: run %s is %s: %w", runID, r.info.Status, ErrRunEnded)
	}
	if want := int64(len(r.records)) + 1; rec.Seq != want {
		return fmt.Errorf("server: run %s: record %d out of order (want %d)", runID, rec.Seq, want)
	}
	r.records = append(r.records, rec)
	r.wake()
	return nil
}

// wake pokes every tail; r.mu is held.
func (r *memRun) wake() {
	for _, w := range r.waiters {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// Update stores the run's record when its status changes.
func (l *MemoryLog) Update(_ context.Context, info RunInfo) error {
	r, err := l.run(info.ID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.info.Status.Final() {
		r.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRunEnded, info.ID)
	}
	r.info = info
	r.wake()
	r.mu.Unlock()
	if info.Status.Final() {
		l.mu.Lock()
		l.done = append(l.done, info.ID)
		l.mu.Unlock()
	}
	return nil
}

// Claim moves a run paused at pauseID to status, running or queued.
func (l *MemoryLog) Claim(_ context.Context, runID, pauseID string, status RunStatus) (RunInfo, error) {
	if !status.Live() {
		return RunInfo{}, fmt.Errorf("server: claim of run %s as %q: a claimed run is running or queued", runID, status)
	}
	r, err := l.run(runID)
	if err != nil {
		return RunInfo{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info.Status != StatusPaused || r.info.PauseID != pauseID {
		return RunInfo{}, fmt.Errorf("%w: %s is %s", ErrNotPaused, runID, r.info.Status)
	}
	r.info.Status, r.info.PauseID, r.info.Pending = status, "", nil
	return r.info, nil
}

// Info returns the run's record.
func (l *MemoryLog) Info(_ context.Context, runID string) (RunInfo, error) {
	r, err := l.run(runID)
	if err != nil {
		return RunInfo{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info, nil
}

// Tail yields the run's records after position after, following it live.
func (l *MemoryLog) Tail(ctx context.Context, runID string, after int64) iter.Seq2[[]Record, error] {
	return func(yield func([]Record, error) bool) {
		r, err := l.run(runID)
		if err != nil {
			yield(nil, err)
			return
		}
		after = max(after, 0)
		wake := make(chan struct{}, 1)
		r.mu.Lock()
		r.waiters = append(r.waiters, wake)
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			r.waiters = slices.DeleteFunc(r.waiters, func(w chan struct{}) bool { return w == wake })
			r.mu.Unlock()
		}()
		for {
			r.mu.Lock()
			// Records are only ever appended, so the batch stays valid
			// after the lock is released.
			recs, final := r.records, r.info.Status.Final()
			r.mu.Unlock()
			if n := int64(len(recs)); n > after {
				batch := recs[after:n:n]
				after = n
				if !yield(batch, nil) {
					return
				}
				continue
			}
			if final {
				return
			}
			select {
			case <-wake:
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			}
		}
	}
}

// Prune removes finished runs that ended before cutoff and the oldest
// finished runs beyond keep.
func (l *MemoryLog) Prune(_ context.Context, cutoff time.Time, keep int) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	excess := 0
	if keep > 0 {
		excess = max(len(l.done)-keep, 0)
	}
	n, removed := 0, 0
	for _, id := range l.done {
		if r := l.runs[id]; r != nil {
			if n >= excess && !finishedBefore(r, cutoff) {
				break
			}
			delete(l.runs, id)
			removed++
		}
		n++
	}
	l.done = l.done[n:]
	return removed, nil
}

func finishedBefore(r *memRun, cutoff time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info.FinishedAt != nil && r.info.FinishedAt.Before(cutoff)
}
