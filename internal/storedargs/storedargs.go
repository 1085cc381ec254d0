// Package storedargs is the JSON form of tool-call arguments in stored
// session events and content parts, shared by the core's encoder and
// general decoder and the session backends' one-pass decoder: arguments
// that are valid JSON within the depth limit are kept as a JSON value
// ("args"); anything else is kept byte for byte in a string ("args_text"),
// or in base64 ("args_bytes") when it is not valid UTF-8, which a JSON
// decoder would replace with U+FFFD.
package storedargs

import (
	"encoding/json"
	"unicode/utf8"
)

// Form is the JSON form of tool-call arguments: exactly one member is set,
// or none for absent arguments.
type Form struct {
	Args      json.RawMessage `json:"args,omitempty"`
	ArgsText  string          `json:"args_text,omitempty"`
	ArgsBytes []byte          `json:"args_bytes,omitempty"`
}

// Store returns the form of args that keeps them whole, with JSON values
// nested at most maxDepth deep.
func Store(args json.RawMessage, maxDepth int) Form {
	switch {
	case len(args) == 0:
		return Form{}
	case !utf8.Valid(args):
		return Form{ArgsBytes: args}
	case depthWithin(args, maxDepth) && json.Valid(args):
		return Form{Args: args}
	default:
		return Form{ArgsText: string(args)}
	}
}

// Storable reports whether args can be encoded as a JSON value as they
// are (Store would return them in Args).
func Storable(args json.RawMessage, maxDepth int) bool {
	return len(args) == 0 || utf8.Valid(args) && depthWithin(args, maxDepth) && json.Valid(args)
}

// Restore returns the arguments a decoded form holds.
func Restore(args json.RawMessage, text string, raw []byte) json.RawMessage {
	switch {
	case text != "":
		return json.RawMessage(text)
	case raw != nil:
		return json.RawMessage(raw)
	}
	return args
}

// depthWithin reports whether the arrays and objects of data (JSON or
// not) nest at most limit deep, counting brackets outside strings.
func depthWithin(data []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}
