package helikon

import (
	"context"
	"slices"
	"sync"
)

// MemorySession is an in-memory [Session]: one instance is one log. It is the
// default for tests and ephemeral runs.
type MemorySession struct {
	mu     sync.RWMutex
	events []SessionEvent
}

// NewMemorySession returns an empty MemorySession.
func NewMemorySession() *MemorySession { return &MemorySession{} }

// Append adds events at the end of the log.
func (s *MemorySession) Append(ctx context.Context, events ...SessionEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range events {
		ev.Seq = SequenceID(len(s.events))
		if ev.Time.IsZero() {
			ev.Time = now()
		}
		s.events = append(s.events, ev)
	}
	return nil
}

// Events returns the events after position after.
func (s *MemorySession) Events(ctx context.Context, after SequenceID) ([]SessionEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	start := int(after + 1)
	if start < 0 {
		start = 0
	}
	if start >= len(s.events) {
		return []SessionEvent{}, nil
	}
	return slices.Clone(s.events[start:]), nil
}

// Snapshot returns the log projected to messages.
func (s *MemorySession) Snapshot(ctx context.Context) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Project(s.events), nil
}
