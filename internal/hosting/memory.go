package hosting

import (
	"context"
	"sync"

	"github.com/paigasus/helikon"
)

// Memory is the hosts' default [Provider]: one [helikon.MemorySession]
// per session id, kept for the life of the process, and a fresh unkept
// one for an empty id. Its zero value is not usable; call [NewMemory].
type Memory struct {
	mu       sync.Mutex
	sessions map[string]*helikon.MemorySession
}

// NewMemory returns an empty in-memory provider.
func NewMemory() *Memory {
	return &Memory{sessions: make(map[string]*helikon.MemorySession)}
}

// Session returns the session named id, creating it on first use.
func (m *Memory) Session(_ context.Context, id string) (helikon.Session, error) {
	if id == "" {
		return helikon.NewMemorySession(), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[id]
	if s == nil {
		s = helikon.NewMemorySession()
		m.sessions[id] = s
	}
	return s, nil
}
