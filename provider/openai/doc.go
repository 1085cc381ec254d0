// Package openai is the OpenAI adapter for Helikon: [Chat] speaks the Chat
// Completions API and [Responses] the Responses API, each as a
// [helikon.Model]. Chat also drives OpenAI-compatible servers (vLLM, Ollama,
// LM Studio, OpenRouter): point [WithBaseURL] at them.
//
//	model, err := openai.Chat("gpt-5-mini") // key from OPENAI_API_KEY
//	if err != nil {
//		log.Fatal(err)
//	}
//	agent, err := helikon.NewAgent("assistant", model)
//
// # What it covers
//
// Streamed text; tool calls, several per turn and interleaved, each
// [helikon.ToolCallDelta] carrying its call id (Chat Completions names a
// call by index after its first delta; the adapter maps indexes back to
// ids); usage with cached and reasoning tokens (the Chat request asks for
// stream_options.include_usage); reasoning summaries and encrypted
// reasoning from the Responses API as [helikon.ReasoningDelta]; tool choice
// and parallel tool calls; images by URL or inline bytes;
// previous_response_id (Responses only: with it set, only the items after
// the last assistant message are sent); structured output as a strict
// json_schema, normalised with [schema.Strict]. Refusals end the stream
// with a Refused [helikon.ModelError] carrying the model's explanation.
//
// # Compatible servers
//
// Chat reads reasoning streamed as delta.reasoning_content (DeepSeek, xAI,
// older vLLM) or delta.reasoning (OpenRouter, Groq, Ollama, newer vLLM) as
// [helikon.ReasoningDelta], and sends it back on tool-calling turns where
// the server requires it ([WithReasoningInHistory]; DeepSeek by default).
// Reasoning tokens are counted once whether the server reports them inside
// completion_tokens (OpenAI, DeepSeek, Groq) or beside them (xAI, whose
// total_tokens shows it). The response id comes from the first chunk that
// names one (Azure's first chunk carries only prompt-filter results).
// Responses takes a call's arguments from its done events when a server
// (LM Studio) sends no deltas, and checks they agree when it sends both. A
// tool call whose arguments are not a JSON object goes back as an object
// holding the raw text under "invalid_arguments": vLLM and SGLang parse
// historical arguments and would otherwise refuse every later turn.
//
// # Errors
//
// Failures are [*helikon.ModelError] values: 429 is RateLimited with the
// retry hint of retry-after-ms, retry-after seconds or an HTTP date, except
// insufficient_quota and billing errors, which waiting does not fix
// (Other); 5xx and server_error are Unavailable; context_length_exceeded is
// ContextLengthExceeded; a failed connection, a broken read, a stream
// that ends before its terminal event ([DONE], response.completed) or an
// event that contradicts the stream (arguments for an unknown item) is
// Transport. A 2xx response that is not an event stream fails at once,
// without retry: a JSON error body as the API's error, anything else (a
// gateway's HTML page, an empty body, a whole non-streamed completion) as
// Other quoting the status, content type and start of the body. One stream
// event larger than [WithMaxEventSize] (default 8 MiB) ends the stream as
// Other. Cancelling the context ends the stream at once and closes the
// response body.
//
// # Why net/http and not the official SDK
//
// The adapter speaks HTTP with the standard library and a small SSE decoder
// rather than github.com/openai/openai-go:
//
//   - Footprint: a minimal streaming program on the official SDK
//     (openai-go v3.99.0) builds to 24.7 MB with -ldflags="-s -w"
//     (go1.26.8, linux/amd64); the quickstart, which links this package,
//     the Anthropic adapter and the mock, builds to 7.3 MB (3.5 MB with the
//     mock alone).
//   - Wire fidelity: the request is exactly the JSON this package writes
//     (tested against the OpenAPI spec in openai/openai-openapi), and every
//     wire event maps to one model event with no intermediate accumulator.
//   - No implicit discovery: the SDK reads OPENAI_API_KEY, OPENAI_BASE_URL,
//     OPENAI_ORG_ID, OPENAI_PROJECT_ID and more on its own. Here the only
//     environment read is the documented default in [Chat] and [Responses]:
//     OPENAI_API_KEY when no [WithAPIKey] is given, OPENAI_BASE_URL when no
//     [WithBaseURL] is given.
//   - No hidden retries: the SDK retries by default; here neither the
//     adapter nor the runner retries. Wrap the model with retry.New (package
//     retry), which retries the transient typed errors and honours their
//     retry hint, the one place retries are configured for every runner.
//   - Streaming cost: text and argument deltas are read with an
//     allocation-free scanner that validates each event as encoding/json
//     would (and leaves anything unusual to encoding/json; the two are
//     fuzzed against each other), about two allocations per delta in all
//     (see BenchmarkStreamDecode1000Deltas).
package openai
