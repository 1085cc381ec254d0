package helikon

import (
	"maps"
	"sync"
	"sync/atomic"
)

// State is run-scoped key/value state shared by an agent and every agent it
// hands off to or orchestrates (workflow agents write each child's final
// text under its key), safe for concurrent use. Values should be
// JSON-serialisable.
type State struct {
	mu sync.RWMutex
	m  map[string]any
}

// NewState returns an empty State.
func NewState() *State { return &State{} }

// Get returns the value stored under key.
func (s *State) Get(key string) (any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	return v, ok
}

// String returns the value under key if it is a string, or "".
func (s *State) String(key string) string {
	v, _ := s.Get(key)
	str, _ := v.(string)
	return str
}

// Set stores v under key.
func (s *State) Set(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]any)
	}
	s.m[key] = v
}

// Snapshot returns a copy of every entry.
func (s *State) Snapshot() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.m)
}

// Actions lets a tool signal the agent that runs it. A LoopAgent stops after
// the sub-agent whose tool called Escalate.
type Actions struct {
	escalated atomic.Bool
}

// Escalate asks the enclosing loop to stop iterating.
func (a *Actions) Escalate() { a.escalated.Store(true) }

// Escalated reports whether Escalate was called.
func (a *Actions) Escalated() bool { return a.escalated.Load() }
