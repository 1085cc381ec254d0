package server

import (
	"net/http"

	"github.com/paigasus/helikon/internal/httphost"
)

// Error is a failed request as the server answers it: an HTTP status and
// the JSON body every route uses for errors,
//
//	{"error": {"code": "missing_field", "message": "…", "field": "input"}}
//
// An [Authenticator], [SessionProvider] or [ContextProvider] returns an
// *Error to choose the status and message the caller sees; any other error
// becomes a 500 (401 from an Authenticator) whose message is the error's.
// Its fields are Status, Code, Message, Field and RetryAfter (sent as the
// Retry-After header). Package agentcore and mcp.AgentServer answer in
// the same shape.
type Error = httphost.Error

// ErrorBody is the JSON body of every error response.
type ErrorBody = httphost.ErrorBody

// The error codes the server itself uses.
const (
	CodeBadRequest     = httphost.CodeBadRequest
	CodeInvalidJSON    = httphost.CodeInvalidJSON
	CodeMissingField   = httphost.CodeMissingField
	CodeBodyTooLarge   = httphost.CodeBodyTooLarge
	CodeBodyTimeout    = httphost.CodeBodyTimeout
	CodeHeaderTooLarge = httphost.CodeHeaderTooLarge
	CodeNotFound       = httphost.CodeNotFound
	CodeAgentNotFound  = "agent_not_found"
	CodeRunNotFound    = "run_not_found"
	// CodeEventsGone answers the events of a run only the run index
	// still remembers (410): its record remains, its events do not.
	CodeEventsGone       = "events_gone"
	CodeMethodNotAllowed = httphost.CodeMethodNotAllowed
	CodeNotAcceptable    = "not_acceptable"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = httphost.CodeForbidden
	CodeTooManyRuns      = "too_many_runs"
	// CodeTooManyStreams: the principal holds its maximum of open event
	// streams (429).
	CodeTooManyStreams = "too_many_streams"
	CodeShuttingDown   = "shutting_down"
	CodeNotForkable    = "not_forkable"
	CodeUnavailable    = httphost.CodeUnavailable
	CodeInternal       = httphost.CodeInternal
)

func errorf(status int, code, field, msg string) *Error {
	return httphost.Errorf(status, code, field, msg)
}

// writeError answers e in the one error shape.
func writeError(w http.ResponseWriter, e *Error) { httphost.Write(w, e) }

func writeJSON(w http.ResponseWriter, status int, v any) { httphost.WriteJSON(w, status, v) }
