// Package anthropic is the Anthropic adapter for Helikon: [Messages] speaks
// the Messages API as a [helikon.Model].
//
//	model, err := anthropic.Messages("claude-sonnet-4-6") // key from ANTHROPIC_API_KEY
//	if err != nil {
//		log.Fatal(err)
//	}
//	agent, err := helikon.NewAgent("assistant", model)
//
// # What it covers
//
// Streamed text; tool_use blocks with their input_json_delta arguments;
// extended thinking ([WithExtendedThinking]) streamed as
// [helikon.ReasoningDelta], with the thinking blocks and their signatures
// (and redacted thinking) sent back unchanged on the next turn, as the API
// requires; prompt caching ([WithCacheStrategy]) with cache_control
// breakpoints on the system prompt, the tools and the conversation tail;
// usage with cache reads ([helikon.Usage].CachedInputTokens) and cache
// writes (CacheWriteTokens); system items, wherever they sit in the
// conversation, hoisted to the top-level system field; consecutive tool
// results merged into one user turn; images by URL or inline bytes;
// structured output natively through output_config.format, or through a
// forced tool call for older models ([WithToolStructuredOutput]). A refusal
// (stop_reason "refusal") ends the stream with a Refused
// [helikon.ModelError] carrying the API's explanation when it gives one.
// A tool call whose arguments are not a JSON object (cut off at max_tokens,
// say) goes back in the history as an object holding the raw text under
// "invalid_arguments", since tool_use input must be an object; the error
// result that follows tells the model what to repair.
//
// # Errors
//
// Failures are [*helikon.ModelError] values: 429 and rate_limit_error are
// RateLimited with the retry-after hint; 529, overloaded_error (also when
// it arrives inside a 200 stream) and 5xx are Unavailable; "prompt is too
// long" is ContextLengthExceeded; billing_error is Other; a failed
// connection or a stream that ends before message_stop is Transport. A 2xx
// response that is not an event stream fails at once, without retry: a JSON
// error body as the API's error, anything else (a gateway's HTML page, an
// empty body, a whole JSON message) as Other quoting the status, content
// type and start of the body. One stream event larger than
// [WithMaxEventSize] (default 8 MiB) ends the stream as Other. Cancelling
// the context ends the stream at once and closes the body.
//
// # API version and why net/http
//
// Every request carries anthropic-version: 2023-06-01 ([APIVersion]),
// pinned in this package so that no dependency upgrade changes the API's
// semantics under a program. The adapter uses the standard library and a
// small SSE decoder rather than github.com/anthropics/anthropic-sdk-go: the
// SDK reads ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL
// on its own and retries by default, a minimal streaming program on it
// (anthropic-sdk-go v1.84.0) builds to 11.9 MB with -ldflags="-s -w" where
// the whole quickstart with both adapters builds to 7.3 MB, and its request
// types are an intermediate the adapter would translate twice. The requests
// this package writes are tested to be the very bodies the official SDK sent
// in its own recorded test cassettes. The only environment read is the
// documented default of [Messages]: ANTHROPIC_API_KEY when no [WithAPIKey]
// is given.
package anthropic
