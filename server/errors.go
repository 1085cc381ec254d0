package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Error is a failed request as the server answers it: an HTTP status and
// the JSON body every route uses for errors,
//
//	{"error": {"code": "missing_field", "message": "…", "field": "input"}}
//
// An [Authenticator], [SessionProvider] or [ContextProvider] returns an
// *Error to choose the status and message the caller sees; any other error
// becomes a 500 (401 from an Authenticator) whose message is the error's.
type Error struct {
	// Status is the HTTP status code.
	Status int `json:"-"`
	// Code is a stable snake_case name clients branch on.
	Code string `json:"code" jsonschema:"stable error code, e.g. missing_field, agent_not_found, too_many_runs"`
	// Message says what went wrong, for people.
	Message string `json:"message" jsonschema:"what went wrong"`
	// Field names the request member at fault, when one is.
	Field string `json:"field,omitempty" jsonschema:"the request body member at fault"`
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter time.Duration `json:"-"`
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error *Error `json:"error" jsonschema:"what went wrong"`
}

// The error codes the server itself uses.
const (
	CodeBadRequest       = "bad_request"
	CodeInvalidJSON      = "invalid_json"
	CodeMissingField     = "missing_field"
	CodeBodyTooLarge     = "body_too_large"
	CodeNotFound         = "not_found"
	CodeAgentNotFound    = "agent_not_found"
	CodeRunNotFound      = "run_not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeNotAcceptable    = "not_acceptable"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeTooManyRuns      = "too_many_runs"
	CodeShuttingDown     = "shutting_down"
	CodeUnavailable      = "unavailable"
	CodeInternal         = "internal"
)

func errorf(status int, code, field, msg string) *Error {
	return &Error{Status: status, Code: code, Field: field, Message: msg}
}

// writeError answers e in the one error shape.
func writeError(w http.ResponseWriter, e *Error) {
	h := w.Header()
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	writeJSON(w, e.Status, ErrorBody{Error: e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"internal","message":"encode response"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
