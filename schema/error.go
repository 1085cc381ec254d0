package schema

import "errors"

// ErrUnsupported is matched (errors.Is) by every [*Error]: the schema uses a
// construct the requested rewrite cannot express.
var ErrUnsupported = errors.New("schema: unsupported construct")

// Error reports a subschema a rewrite cannot handle.
type Error struct {
	// Path is the JSON Pointer of the subschema, "" for the root.
	Path string
	// Reason says what is wrong with it.
	Reason string
}

// Error formats the path and reason.
func (e *Error) Error() string {
	path := e.Path
	if path == "" {
		path = "/"
	}
	return "schema: " + e.Reason + " at " + path
}

// Is makes errors.Is(err, ErrUnsupported) hold.
func (e *Error) Is(target error) bool { return target == ErrUnsupported }
