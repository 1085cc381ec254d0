package httphost

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Error is a failed request as the hosts answer it: an HTTP status and the
// JSON body every route uses for errors,
//
//	{"error": {"code": "missing_field", "message": "…", "field": "input"}}
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

// The error codes the hosts use.
const (
	CodeBadRequest           = "bad_request"
	CodeInvalidJSON          = "invalid_json"
	CodeMissingField         = "missing_field"
	CodeBodyTooLarge         = "body_too_large"
	CodeBodyTimeout          = "body_timeout"
	CodeHeaderTooLarge       = "header_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeNotImplemented       = "not_implemented"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeForbidden            = "forbidden"
	CodeUnavailable          = "unavailable"
	CodeInternal             = "internal"
)

// Errorf returns an [*Error]; field may be empty.
func Errorf(status int, code, field, msg string) *Error {
	return &Error{Status: status, Code: code, Field: field, Message: msg}
}

// Write answers e in the one error shape.
func Write(w http.ResponseWriter, e *Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	WriteJSON(w, e.Status, ErrorBody{Error: e})
}

// WriteJSON answers status with v as JSON and a Content-Length. A value
// that does not encode becomes a 500 in the error shape.
func WriteJSON(w http.ResponseWriter, status int, v any) {
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
