package server

import (
	"context"
	"sync"

	"github.com/paigasus/helikon"
)

// SessionProvider maps the X-Session-Id header to the session a run loads
// and persists. id is empty when the request carries no header: return a
// fresh session that is not kept. Implementations must be safe for
// concurrent use.
//
// Any [helikon.Session] backend plugs in with a few lines; with Redis:
//
//	sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
//		if id == "" {
//			return helikon.NewMemorySession(), nil
//		}
//		return rsession.New(client, id)
//	})
type SessionProvider interface {
	Session(ctx context.Context, id string) (helikon.Session, error)
}

// SessionFunc adapts a function to a [SessionProvider].
type SessionFunc func(ctx context.Context, id string) (helikon.Session, error)

// Session calls f.
func (f SessionFunc) Session(ctx context.Context, id string) (helikon.Session, error) {
	return f(ctx, id)
}

// MemorySessions is the default [SessionProvider]: one
// [helikon.MemorySession] per session id, kept for the life of the
// process, and a fresh unkept one for requests without an id.
type MemorySessions struct {
	mu       sync.Mutex
	sessions map[string]*helikon.MemorySession
}

// NewMemorySessions returns an empty in-memory session provider.
func NewMemorySessions() *MemorySessions {
	return &MemorySessions{sessions: make(map[string]*helikon.MemorySession)}
}

// Session returns the session named id, creating it on first use.
func (m *MemorySessions) Session(_ context.Context, id string) (helikon.Session, error) {
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
