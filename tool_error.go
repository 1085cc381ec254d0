package helikon

import (
	"errors"
	"strings"
)

// ToolErrorKind classifies a [ToolError].
type ToolErrorKind string

// The tool error kinds. InvalidArgs is the one recoverable kind: the loop
// feeds the schema errors back to the model once.
const (
	ToolInvalidArgs ToolErrorKind = "invalid_args"
	ToolDenied      ToolErrorKind = "denied"
	ToolFailed      ToolErrorKind = "other"
)

// ToolError is the error a tool call ends with.
type ToolError struct {
	Kind ToolErrorKind
	Tool string
	// SchemaErrors lists what was wrong with the arguments (InvalidArgs).
	SchemaErrors []string
	Reason       string
	// Err is the underlying cause (Other).
	Err error
}

// Error describes the failure in a form fit to show the model.
func (e *ToolError) Error() string {
	var b strings.Builder
	if e.Tool != "" {
		b.WriteString("tool " + e.Tool + ": ")
	}
	switch e.Kind {
	case ToolInvalidArgs:
		b.WriteString("invalid arguments")
		if len(e.SchemaErrors) > 0 {
			b.WriteString(": " + strings.Join(e.SchemaErrors, "; "))
		}
	case ToolDenied:
		b.WriteString("denied")
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
	default:
		if e.Err != nil {
			b.WriteString(e.Err.Error())
		} else if e.Reason != "" {
			b.WriteString(e.Reason)
		} else {
			b.WriteString("failed")
		}
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// Is matches the kind sentinels: errors.Is(err, ErrInvalidArgs).
func (e *ToolError) Is(target error) bool {
	t, ok := target.(*ToolError)
	return ok && t.Tool == "" && t.Err == nil && t.Reason == "" && t.SchemaErrors == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is on [ToolError] kinds.
var (
	ErrInvalidArgs = &ToolError{Kind: ToolInvalidArgs}
	ErrToolDenied  = &ToolError{Kind: ToolDenied}
	ErrToolFailed  = &ToolError{Kind: ToolFailed}
)

// InvalidArgs returns a ToolError reporting schema errors.
func InvalidArgs(schemaErrors ...string) *ToolError {
	return &ToolError{Kind: ToolInvalidArgs, SchemaErrors: schemaErrors}
}

func asToolError(tool string, err error) *ToolError {
	if te, ok := errors.AsType[*ToolError](err); ok {
		if te.Tool == "" {
			c := *te
			c.Tool = tool
			return &c
		}
		return te
	}
	return &ToolError{Kind: ToolFailed, Tool: tool, Err: err}
}
