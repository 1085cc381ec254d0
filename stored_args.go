package helikon

import (
	"encoding/json"
	"unicode/utf8"
)

// MaxStoredArgsDepth is the deepest nesting of tool-call arguments that
// JSON encodings of [SessionEvent] and [ToolUsePart] keep as a JSON value.
// Arguments nested deeper, and arguments that are not valid JSON (a model
// cut off at max_tokens sends `{"a":1,"b":`), are kept byte for byte in a
// string member instead: "args_text", or "args_bytes" (base64) when they
// are not valid UTF-8 (which a JSON decoder would replace with U+FFFD). Decoding restores the exact bytes in Args either
// way, so every session backend stores what the model sent, as
// [MemorySession] does, and the event stays decodable by decoders (and
// databases) with a nesting limit of their own.
const MaxStoredArgsDepth = 128

// storedArgs is the JSON form of tool-call arguments: exactly one member is
// set, or none for absent arguments.
type storedArgs struct {
	Args      json.RawMessage `json:"args,omitempty"`
	ArgsText  string          `json:"args_text,omitempty"`
	ArgsBytes []byte          `json:"args_bytes,omitempty"`
}

// storeArgs returns the JSON form of args.
func storeArgs(args json.RawMessage) storedArgs {
	switch {
	case len(args) == 0:
		return storedArgs{}
	case !utf8.Valid(args):
		return storedArgs{ArgsBytes: args}
	case jsonDepthWithin(args, MaxStoredArgsDepth) && json.Valid(args):
		return storedArgs{Args: args}
	default:
		return storedArgs{ArgsText: string(args)}
	}
}

// argsStorable reports whether args can be encoded as a JSON value as
// they are.
func argsStorable(args json.RawMessage) bool {
	return len(args) == 0 || utf8.Valid(args) && jsonDepthWithin(args, MaxStoredArgsDepth) && json.Valid(args)
}

// restoreArgs returns the arguments a storedArgs holds.
func restoreArgs(args json.RawMessage, text string, raw []byte) json.RawMessage {
	switch {
	case text != "":
		return json.RawMessage(text)
	case raw != nil:
		return json.RawMessage(raw)
	}
	return args
}

// jsonDepthWithin reports whether the arrays and objects of data (JSON or
// not) nest at most limit deep, counting brackets outside strings.
func jsonDepthWithin(data []byte, limit int) bool {
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
