package helikon

import (
	"errors"
	"fmt"
	"time"
)

// ModelErrorKind classifies a [ModelError].
type ModelErrorKind string

// The model error kinds. RateLimited, Unavailable and Transport are
// transient: a retrying wrapper may try again.
const (
	ModelUnavailable           ModelErrorKind = "unavailable"
	ModelRateLimited           ModelErrorKind = "rate_limited"
	ModelContextLengthExceeded ModelErrorKind = "context_length_exceeded"
	ModelRefused               ModelErrorKind = "refused"
	ModelTransport             ModelErrorKind = "transport"
	ModelOther                 ModelErrorKind = "other"
)

// ModelError is the error a [Model] reports. Match kinds with errors.Is
// against the sentinels ([ErrRateLimited], …) or inspect with errors.As.
type ModelError struct {
	Kind ModelErrorKind
	// Provider names the adapter ("openai", "anthropic", "mock").
	Provider string
	// StatusCode is the HTTP status, when there was one.
	StatusCode int
	// RetryAfter is the provider's hint for RateLimited, zero when absent.
	RetryAfter time.Duration
	// Message is the provider's own message.
	Message string
	Err     error
}

// Error reports the kind, status and message.
func (e *ModelError) Error() string {
	msg := "model error: " + string(e.Kind)
	if e.Provider != "" {
		msg = e.Provider + ": " + msg
	}
	if e.StatusCode != 0 {
		msg += fmt.Sprintf(" (status %d)", e.StatusCode)
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *ModelError) Unwrap() error { return e.Err }

// Is matches the kind sentinels: errors.Is(err, ErrRateLimited).
func (e *ModelError) Is(target error) bool {
	t, ok := target.(*ModelError)
	return ok && t.Provider == "" && t.Message == "" && t.Err == nil && t.Kind == e.Kind
}

// Transient reports whether a retry may succeed.
func (e *ModelError) Transient() bool {
	switch e.Kind {
	case ModelRateLimited, ModelUnavailable, ModelTransport:
		return true
	}
	return false
}

// Sentinels for errors.Is on [ModelError] kinds.
var (
	ErrModelUnavailable      = &ModelError{Kind: ModelUnavailable}
	ErrRateLimited           = &ModelError{Kind: ModelRateLimited}
	ErrContextLengthExceeded = &ModelError{Kind: ModelContextLengthExceeded}
	ErrRefused               = &ModelError{Kind: ModelRefused}
	ErrTransport             = &ModelError{Kind: ModelTransport}
	ErrModelOther            = &ModelError{Kind: ModelOther}
)

// IsTransient reports whether err is a transient [ModelError].
func IsTransient(err error) bool {
	var me *ModelError
	return errors.As(err, &me) && me.Transient()
}
