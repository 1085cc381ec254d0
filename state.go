package helikon

import (
	"sync"
	"sync/atomic"

	"github.com/paigasus/helikon/internal/smallmap"
)

// State is run-scoped key/value state shared by an agent and every agent it
// hands off to or orchestrates (workflow agents write each child's final
// text under its key), safe for concurrent use. Values should be
// JSON-serialisable.
type State struct {
	mu sync.RWMutex
	kv *smallmap.Map[any] // made at the first Set: most runs' State is never written
}

// NewState returns an empty State.
func NewState() *State { return &State{} }

// Get returns the value stored under key.
func (s *State) Get(key string) (v any, ok bool) {
	// Unlocked without a defer: nothing between can panic.
	s.mu.RLock()
	if e := s.kv; e != nil {
		v, ok = e.Get(key)
	}
	s.mu.RUnlock()
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
	// Unlocked without a defer: nothing between can panic (a map of
	// strings refuses no key).
	s.mu.Lock()
	if s.kv == nil {
		s.kv = &smallmap.Map[any]{}
	}
	s.kv.Set(key, v)
	s.mu.Unlock()
}

// Snapshot returns a copy of every entry (nil when there is none).
func (s *State) Snapshot() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.kv == nil {
		return nil
	}
	return s.kv.Clone()
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
