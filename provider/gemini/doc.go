// Package gemini is the Google Gemini adapter for Helikon: [Model] streams
// from the streamGenerateContent endpoint (?alt=sse) as a [helikon.Model],
// on the Gemini Developer API ([New]) or on Vertex AI ([Vertex],
// [VertexFromEnv]).
//
//	model, err := gemini.New("gemini-2.5-flash") // key from GEMINI_API_KEY or GOOGLE_API_KEY
//	if err != nil {
//		log.Fatal(err)
//	}
//	agent, err := helikon.NewAgent("assistant", model)
//
// # What it covers
//
// Streamed text; function calls, several per turn, with the id the API
// gives them or, where it gives none, a synthesised id stable for the
// response ("call_<responseId>_<n>"); thought summaries ([WithThinking])
// streamed as [helikon.ReasoningDelta]; thought signatures, which Gemini 3
// requires back on the part they came with, streamed as ReasoningDelta
// values whose ID names that part and put back there on the next turn;
// usage with the prompt (including tool-use prompt tokens), answer and
// thought tokens, and cached tokens as CachedInputTokens; system items
// hoisted to systemInstruction; consecutive tool results merged into one
// turn; images inline or by URI (fileData: a remote URL, gs:// object or
// Files API URI), in user turns and in tool results alike: as
// function-response parts, except that the Developer API takes only inline
// bytes there, so an image by URI follows the function response as a part
// of the same turn. Tool parameters go as parametersJsonSchema, full JSON
// Schema.
//
// Structured output is native: responseJsonSchema, or for the Gemini 1.x
// and 2.0 families (and with [WithResponseSchema]) responseSchema through
// [SanitizeSchema]. Gemini rejects structured output together with
// function calling, so such a request fails before sending with an error
// wrapping [ErrStructuredOutputWithTools].
//
// # Errors
//
// Failures are [*helikon.ModelError] values: RESOURCE_EXHAUSTED is
// RateLimited with the delay of its google.rpc.RetryInfo; UNAVAILABLE,
// INTERNAL and 5xx are Unavailable; an INVALID_ARGUMENT about the token
// count is ContextLengthExceeded; PERMISSION_DENIED, UNAUTHENTICATED and an
// invalid key are Other, with a message naming the credentials to check; a
// blocked prompt (promptFeedback.blockReason) and an answer stopped for
// SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT or SPII are Refused. An
// error object arriving inside the stream is classified the same way. The
// stream has no terminal event: one that ends before a finish reason is a
// Transport error, as is a failed connection. A 2xx response that is not
// an event stream fails at once, without retry. One stream event larger
// than [WithMaxEventSize] (default 8 MiB) ends the stream as Other.
// Cancelling the context ends the stream at once and closes the body.
//
// # Credentials and why net/http
//
// The Developer API key is [WithAPIKey], else GEMINI_API_KEY, else
// GOOGLE_API_KEY; nothing else is read. Vertex AI takes [WithTokenSource]
// or [WithBearerToken]; only [VertexFromEnv] looks for Application Default
// Credentials (golang.org/x/oauth2/google), and only when no token source
// was given. The adapter speaks the REST API with the standard library
// rather than google.golang.org/genai, which reads several environment
// variables (GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_*) on its own and
// whose request types the adapter would translate twice. The request bodies
// it writes are checked against the Vertex AI v1 discovery document and,
// for the Developer API, its v1beta protos (which say what the discovery
// document cannot: required fields and oneof alternatives).
package gemini
