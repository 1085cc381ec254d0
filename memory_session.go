package helikon

import (
	"context"
	"slices"
	"sync"
)

// MemorySession is an in-memory [Session]: one instance is one log. It is the
// default for tests and ephemeral runs.
type MemorySession struct {
	// A plain mutex rather than a read-write one: every operation holds it
	// briefly, and a runner appends several times per run, where the
	// read-write lock's extra atomics showed in the runner's benchmark.
	mu     sync.Mutex
	events []SessionEvent
}

// minMemoryEvents is the room a new MemorySession makes on its first
// Append: a runner appends a few small batches per run.
const minMemoryEvents = 4

// NewMemorySession returns an empty MemorySession.
func NewMemorySession() *MemorySession { return &MemorySession{} }

// Append adds events at the end of the log.
func (s *MemorySession) Append(ctx context.Context, events ...SessionEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events == nil {
		s.events = make([]SessionEvent, 0, max(len(events), minMemoryEvents))
	}
	start := len(s.events)
	s.events = append(s.events, events...)
	for i := start; i < len(s.events); i++ {
		ev := &s.events[i]
		ev.Seq = SequenceID(i)
		if ev.Time.IsZero() {
			ev.Time = now()
		}
	}
	return nil
}

// Events returns the events after position after.
func (s *MemorySession) Events(ctx context.Context, after SequenceID) ([]SessionEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// after is compared rather than incremented: after+1 overflows at the
	// largest position.
	if after >= SequenceID(len(s.events))-1 {
		return []SessionEvent{}, nil
	}
	return slices.Clone(s.events[max(after+1, 0):]), nil
}

// Snapshot returns the log projected to messages.
func (s *MemorySession) Snapshot(ctx context.Context) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Project(s.events), nil
}
