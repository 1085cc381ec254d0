package helikon

// The bounds on what the core decodes and stores, so that hostile or
// corrupt input fails with an error rather than exhausting memory or stack.
const (
	// MaxDecisionArgsSize bounds the replaced arguments of a [Decision].
	MaxDecisionArgsSize = 1 << 20
	// MaxRunStateSize bounds the JSON of a [RunState] that
	// [UnmarshalRunState] accepts.
	MaxRunStateSize = 64 << 20
	// MaxSubRunNesting bounds how deeply [UnmarshalEvent] follows
	// [SubRunEvent]s wrapped in one another, far past any agent depth a run
	// allows ([RunConfig].MaxAgentDepth).
	MaxSubRunNesting = 64
	// MaxStoredArgsDepth is the deepest nesting of tool-call arguments that
	// JSON encodings of [SessionEvent] and [ToolUsePart] keep as a JSON
	// value. Arguments nested deeper, and arguments that are not valid JSON
	// (a model cut off at max_tokens sends `{"a":1,"b":`), are kept byte for
	// byte in "args_text", or in "args_bytes" (base64) when they are not
	// valid UTF-8. Decoding restores the exact bytes either way, so every
	// backend stores what the model sent, and the event stays decodable by
	// decoders (and databases) with a nesting limit of their own.
	MaxStoredArgsDepth = 128
)
