// Package bedrock is the AWS Bedrock adapter for Helikon: [Model] streams
// from the Converse API (ConverseStream) as a [helikon.Model], through
// aws-sdk-go-v2's bedrockruntime client.
//
//	cfg, err := config.LoadDefaultConfig(ctx) // github.com/aws/aws-sdk-go-v2/config
//	if err != nil {
//		log.Fatal(err)
//	}
//	model, err := bedrock.New(cfg, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
//	if err != nil {
//		log.Fatal(err)
//	}
//	agent, err := helikon.NewAgent("assistant", model)
//
// [New] takes an aws.Config: the SDK's config package loads the standard
// AWS credential chain into one, and a program that needs less (a container
// whose credentials come from the instance or microVM metadata service)
// builds its own from the SDK's credential providers, without linking the
// chain's STS, SSO and sign-in clients (3.9 MB of a stripped binary, and
// their init work on every start). Credentials resolve lazily, so a missing
// or refused one is the first Invoke's error (a missing one wrapping
// [ErrNoCredentials], which names the variables to set). [NewFromClient]
// takes a ready client.
//
// # What it covers
//
// Streamed text; tool use (several calls per turn, arguments as input
// deltas); multi-turn conversations with system prompts hoisted to the
// system field and a turn's tool results merged into one user message;
// images as bytes or s3:// locations, in user turns and tool results;
// reasoning content (with [WithThinking] on Anthropic models) as
// [helikon.ReasoningDelta], its signature (and redacted reasoning) sent back
// on the next turn; usage with cache reads and writes; stop reasons, a
// guardrail or content filter stop being Refused.
//
// Every tool's input schema goes through [RewriteToolSchema]. The family is
// read from the model id ([DetectFamily]), after any cross-region prefix
// (us., eu., ap., apac., global., …). Anthropic, Amazon Nova and Mistral
// models get structured output through a forced hidden tool whose input
// streams as the answer text (never as a tool call the loop sees), except
// where Bedrock's native JSON-schema output (outputConfig.textFormat) is
// documented for the model (Claude Haiku 4.5, Sonnet 4.5 and 4.6, Opus 4.5
// and 4.6), which is preferred; [WithNativeStructuredOutput] asks for it
// on any other model. Titan, Llama, Cohere and unknown families
// have neither: a response format degrades to plain text, and the adapter
// says so, with a slog warning once per model and
// Capabilities().StructuredOutput false.
//
// # Errors
//
// Failures are [*helikon.ModelError] values: ThrottlingException and
// ServiceQuotaExceededException are RateLimited; ServiceUnavailable,
// ModelNotReady, InternalServer, ModelStreamError and ModelTimeout
// exceptions are Unavailable; a ValidationException about the input length
// is ContextLengthExceeded; AccessDenied and ResourceNotFound are Other,
// naming the model id and region. Exceptions arriving inside the event
// stream map the same way; a stream that ends before messageStop, a message
// whose checksums fail, a broken connection and a cancelled context are
// Transport. A 2xx response that is not an event stream and a message over
// [WithMaxEventSize] are Other, not retried.
//
// # Why aws-sdk-go-v2
//
// Bedrock needs SigV4 signing, AWS credentials (profiles, SSO, web
// identity, container and instance roles) and the binary event-stream
// framing: the SDK's service/bedrockruntime and its credential providers
// bring all three, maintained by AWS, where a hand-written client would
// re-implement them. The package takes an aws.Config rather than loading
// one, so that the SDK's config package, whose credential chain links the
// STS, SSO, SSO-OIDC and sign-in clients, is linked only into a program
// that asks for it. The SDK's cost is binary size and package
// initialisation (its bedrockruntime schemas are built at init), measured
// in examples/agentcore/README.md. The client [New] builds does not retry
// (retry.Model does, on the typed errors).
//
// The adapter uses the SDK for the request (serialising, signing, sending)
// and for error responses, and reads the response's event stream itself,
// through an HTTP client of its own placed in front of the SDK's for each
// call: the SDK's event reader costs about 55 allocations a text delta
// against the budget of 3, shares decoder state between concurrent calls,
// and the SDK's request body (smithy-go v1.28.9) makes net/http close the
// connection under a response that arrives quickly. docs/providers.md
// gives the details and figures.
package bedrock
