package server

import "github.com/paigasus/helikon/internal/hosting"

// SessionProvider maps the X-Session-Id header to the session a run loads
// and persists. id is empty when the request carries no header: return a
// fresh session that is not kept. Implementations must be safe for
// concurrent use. It is the same type as agentcore.SessionProvider, so one
// provider serves both hosts.
//
// Any [helikon.Session] backend plugs in with a few lines; with Redis:
//
//	sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
//		if id == "" {
//			return helikon.NewMemorySession(), nil
//		}
//		return rsession.New(client, id)
//	})
type SessionProvider = hosting.Provider

// SessionFunc adapts a function to a [SessionProvider]: its Session method
// calls the function.
type SessionFunc = hosting.Func

// MemorySessions is the default [SessionProvider]: one
// [helikon.MemorySession] per session id, kept for the life of the
// process, and a fresh unkept one for requests without an id. Its Session
// method creates the session named id on first use.
type MemorySessions = hosting.Memory

// NewMemorySessions returns an empty in-memory session provider.
func NewMemorySessions() *MemorySessions { return hosting.NewMemory() }
