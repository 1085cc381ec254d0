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
	// mu is a plain mutex: a workflow writes its state once a child, and
	// a reader holds it for a scan of a few keys, so a write costs two
	// atomic operations rather than the four of a reader-writer lock's.
	mu sync.Mutex
	kv *smallmap.Map[stateValue] // made at the first Set: most runs' State is never written
}

// stateValue is one entry of a State: a string SetString wrote, held
// unboxed in s (str set), or any other value in v.
type stateValue struct {
	v   any
	s   string
	str bool
}

// value returns the entry as Get does.
func (e stateValue) value() any {
	if e.str {
		return e.s
	}
	return e.v
}

// NewState returns an empty State.
func NewState() *State { return &State{} }

// Get returns the value stored under key.
func (s *State) Get(key string) (v any, ok bool) {
	// Unlocked without a defer: nothing between can panic.
	s.mu.Lock()
	var e stateValue
	if kv := s.kv; kv != nil {
		e, ok = kv.Get(key)
	}
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	return e.value(), true
}

// String returns the value under key if it is a string, or "".
func (s *State) String(key string) string {
	s.mu.Lock()
	var e stateValue
	if kv := s.kv; kv != nil {
		e, _ = kv.Get(key)
	}
	s.mu.Unlock()
	if e.str {
		return e.s
	}
	str, _ := e.v.(string)
	return str
}

// Set stores v under key.
func (s *State) Set(key string, v any) { s.set(key, stateValue{v: v}) }

// SetString stores the string v under key, as Set(key, v) does, without
// boxing it in an interface value: workflow agents write every child's
// final text with it, one allocation fewer each.
func (s *State) SetString(key, v string) { s.set(key, stateValue{s: v, str: true}) }

func (s *State) set(key string, e stateValue) {
	// Unlocked without a defer: nothing between can panic (a map of
	// strings refuses no key).
	s.mu.Lock()
	if s.kv == nil {
		s.kv = &smallmap.Map[stateValue]{}
	}
	s.kv.Set(key, e)
	s.mu.Unlock()
}

// Snapshot returns a copy of every entry (nil when there is none).
func (s *State) Snapshot() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv == nil {
		return nil
	}
	return smallmap.CloneFunc(s.kv, stateValue.value)
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
