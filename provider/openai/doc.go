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
// # Errors
//
// Failures are [*helikon.ModelError] values: 429 is RateLimited with the
// retry hint of retry-after-ms, retry-after seconds or an HTTP date, except
// insufficient_quota and billing errors, which waiting does not fix
// (Other); 5xx and server_error are Unavailable; context_length_exceeded is
// ContextLengthExceeded; a failed connection, a broken read or a stream
// that ends before its terminal event ([DONE], response.completed) is
// Transport. Cancelling the context ends the stream at once and closes the
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
//   - No hidden retries: the SDK retries by default; Helikon leaves retrying
//     to the runner, which sees the typed error and its retry hint.
//   - Streaming cost: text and argument deltas are read with an
//     allocation-free field scanner, about two allocations per delta in all
//     (see BenchmarkStreamDecode1000Deltas).
package openai
