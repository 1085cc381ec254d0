package hosting

import (
	"context"

	"github.com/paigasus/helikon"
)

// Provider maps a request's session id to the session its run loads and
// persists. id is empty when the request names no session: return a fresh
// session that is not kept. Implementations must be safe for concurrent
// use.
type Provider interface {
	Session(ctx context.Context, id string) (helikon.Session, error)
}

// Func adapts a function to a [Provider].
type Func func(ctx context.Context, id string) (helikon.Session, error)

// Session calls f.
func (f Func) Session(ctx context.Context, id string) (helikon.Session, error) {
	return f(ctx, id)
}
