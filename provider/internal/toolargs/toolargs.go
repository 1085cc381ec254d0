// Package toolargs puts a tool call's arguments into the form every
// provider API accepts when a conversation is sent back to it.
//
// A model cut off at its token limit leaves truncated arguments
// ({"a":1,"b":), and a model can emit JSON that is not an object at all.
// The run keeps such a call in its history together with the tool result
// that told the model its arguments were invalid, so the model can repair
// them on its next turn. But the APIs want an object there: Anthropic's
// tool_use input is an object, and OpenAI-compatible servers such as vLLM
// and SGLang parse function arguments as a JSON object and answer 400
// otherwise, which would fail every later turn of the conversation.
package toolargs

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// InvalidKey is the member under which [Object] keeps arguments that are
// not a JSON object, as a string holding exactly what the model sent.
const InvalidKey = "invalid_arguments"

// Object returns args when they are a JSON object, "{}" when they are
// empty, and otherwise (not an object, not valid JSON, or not UTF-8) an object whose only member, [InvalidKey], holds
// the raw text as a string. The result is always a valid JSON object, so
// encoding a request that carries it cannot fail and no server rejects it.
func Object(args []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return json.RawMessage("{}")
	}
	// json.Valid is the check encoding/json applies when it marshals a
	// RawMessage, so a value passing it cannot fail to encode later.
	// Invalid UTF-8 passes json.Valid but is not JSON text (RFC 8259) and
	// would go out verbatim; wrapping it as a string replaces those bytes.
	if trimmed[0] == '{' && json.Valid(trimmed) && utf8.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	wrapped, _ := json.Marshal(map[string]string{InvalidKey: string(args)}) // a string map always encodes
	return wrapped
}

// String is [Object] as a string, for APIs that carry arguments as a JSON
// string (OpenAI's Chat Completions and Responses).
func String(args []byte) string { return string(Object(args)) }
