package server

import (
	"context"
	"net/url"
)

// Principal is who a request acts for, as the [Authenticator] admitted it.
// A run, its events and its approvals belong to the principal that
// started it, and a session id names a session of its principal's own:
// two principals that both send X-Session-Id: support get two sessions.
// Every route that names a run answers another principal 404, as for a
// run that does not exist, so an id is never confirmed to a caller who
// does not own it.
//
// A server without an Authenticator serves one anonymous principal (ID
// ""), which owns every run.
type Principal struct {
	// ID names the principal; the owner of the runs it starts
	// ([RunInfo].Owner).
	ID string
	// Admin principals see and act on every principal's runs; each use
	// of another's run, and each listing of all runs, is logged with the
	// server's logger (message "server: audit: admin access").
	Admin bool
}

type principalKey struct{}

// PrincipalOf returns the principal a request acts for, from the
// request's context, as the server put it there after the
// [Authenticator] admitted it: for a [ContextProvider] or a
// [SessionProvider] that derives more from who the caller is.
func PrincipalOf(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// owns reports whether p may see and act on a run owned by owner.
func (p Principal) owns(owner string) bool { return p.Admin || p.ID == owner }

// scopedSession is the id the [SessionProvider] gets for the session a
// principal names id: the anonymous principal's ids as they are, any
// other's prefixed with the principal's ID, path-escaped so that no "/"
// is in it, then "/". Distinct (principal, id) pairs map to distinct ids,
// and a request without a session stays without one.
func scopedSession(owner, id string) string {
	if owner == "" || id == "" {
		return id
	}
	return url.PathEscape(owner) + "/" + id
}
