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
	kv *stateEntries // made at the first Set
}

// stateEntries holds a State's entries. A run's state holds a few keys (a
// workflow's children's outputs): the first stateInline sit in kv, found
// by a scan, which costs one allocation where a map costs two, and no
// hash a key. m takes all of them over once there are more. A State that
// is never written (most runs' are not) stays as small as its lock.
type stateEntries struct {
	n  int
	kv [stateInline]stateEntry
	m  map[string]any
}

// stateInline is how many keys a [State] holds before it makes a map.
const stateInline = 4

type stateEntry struct {
	key string
	v   any
}

// NewState returns an empty State.
func NewState() *State { return &State{} }

// Get returns the value stored under key.
func (s *State) Get(key string) (v any, ok bool) {
	// Unlocked without a defer: nothing between can panic.
	s.mu.RLock()
	if e := s.kv; e != nil {
		v, ok = e.get(key)
	}
	s.mu.RUnlock()
	return v, ok
}

func (e *stateEntries) get(key string) (any, bool) {
	if e.m != nil {
		v, ok := e.m[key]
		return v, ok
	}
	for i := range e.n {
		if e.kv[i].key == key {
			return e.kv[i].v, true
		}
	}
	return nil, false
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
		s.kv = &stateEntries{}
	}
	s.kv.set(key, v)
	s.mu.Unlock()
}

func (e *stateEntries) set(key string, v any) {
	if e.m != nil {
		e.m[key] = v
		return
	}
	for i := range e.n {
		if e.kv[i].key == key {
			e.kv[i].v = v
			return
		}
	}
	if e.n < stateInline {
		e.kv[e.n] = stateEntry{key: key, v: v}
		e.n++
		return
	}
	e.m = make(map[string]any, 2*stateInline)
	for _, kv := range e.kv {
		e.m[kv.key] = kv.v
	}
	e.kv, e.n = [stateInline]stateEntry{}, 0
	e.m[key] = v
}

// Snapshot returns a copy of every entry (nil when there is none).
func (s *State) Snapshot() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.kv
	switch {
	case e == nil || e.m == nil && e.n == 0:
		return nil
	case e.m != nil:
		return maps.Clone(e.m)
	}
	m := make(map[string]any, e.n)
	for _, kv := range e.kv[:e.n] {
		m[kv.key] = kv.v
	}
	return m
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
