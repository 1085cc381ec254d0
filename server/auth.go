package server

import (
	"context"
	"net/http"
)

// Authenticator admits or rejects every request before any route runs. It
// returns the [Principal] the request acts for, whose runs, sessions and
// approvals are the only ones it reaches, and the context the request
// continues with (nil: the request's own; put more of the caller's
// identity on it for the [ContextProvider] to read, which also finds the
// principal there with [PrincipalOf]). An admitted request must have a
// principal with a non-empty ID: the server refuses one without (500), so
// a forgotten ID cannot merge every caller into one. An error rejects the
// request: an [*Error] with status 401 or 403 and a message, or any other
// error, which becomes a 401.
//
// It is an interface rather than a middleware so that a rejection always
// has the server's one JSON error shape and status rules, whichever route
// was asked for, 404s and the OpenAPI document included. Ordinary
// middleware still composes around [Server.Handler] for everything else
// (logging, CORS, rate limits by address).
type Authenticator interface {
	Authenticate(r *http.Request) (Principal, context.Context, error)
}

// AuthFunc adapts a function to an [Authenticator].
type AuthFunc func(r *http.Request) (Principal, context.Context, error)

// Authenticate calls f.
func (f AuthFunc) Authenticate(r *http.Request) (Principal, context.Context, error) { return f(r) }

// Unauthorized returns the [*Error] an [Authenticator] answers a caller
// that did not prove who it is with (401).
func Unauthorized(msg string) *Error {
	return errorf(http.StatusUnauthorized, CodeUnauthorized, "", msg)
}

// Forbidden returns the [*Error] an [Authenticator] answers a caller that
// may not use the server with (403).
func Forbidden(msg string) *Error { return errorf(http.StatusForbidden, CodeForbidden, "", msg) }
