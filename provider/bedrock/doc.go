// Package bedrock is the AWS Bedrock adapter for Helikon: [Model] streams
// from the Converse API (ConverseStream) as a [helikon.Model]. It takes its
// configuration and credentials as an aws-sdk-go-v2 aws.Config and signs
// with the SDK's SigV4 signer; it writes the request and reads the
// response itself, without the SDK's bedrockruntime client.
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
// [ErrNoCredentials], which names the variables to set). Requests go to
// the region's endpoint, https://bedrock-runtime.{region}.amazonaws.com,
// unless [WithBaseEndpoint] or aws.Config.BaseEndpoint names another (a
// FIPS or VPC endpoint, a test server), through aws.Config.HTTPClient.
//
// # What it covers
//
// Streamed text; tool use (several calls per turn, arguments as input
// deltas); multi-turn conversations with system prompts hoisted to the
// system field and a turn's tool results merged into one user message;
// images as bytes or s3:// locations, in user turns and tool results;
// reasoning content (with [WithThinking] on Anthropic models) as
// [helikon.ReasoningDelta], its signature (and redacted reasoning) sent back
// on the next turn; prompt caching on Claude and Nova models
// ([WithCacheStrategy] places the cache points), usage with cache reads and
// writes; stop reasons, a guardrail or content filter stop being Refused.
// Tool-call ids from another provider that Converse's toolUseId pattern
// refuses go out mapped to ones it takes, the same for a call and its
// result.
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
// naming the model id and region, as do the signature and token errors
// (UnrecognizedClient, InvalidSignature, ExpiredToken); an error response
// without a code (a proxy's page) is classified by its status and quoted.
// The code is read from the X-Amzn-ErrorType header or the body's __type,
// and the cause is a smithy.APIError carrying it. Exceptions arriving
// inside the event stream map the same way; a stream that ends before messageStop, a message
// whose checksums fail, a broken connection and a cancelled context are
// Transport. A 2xx response that is not an event stream and a message over
// [WithMaxEventSize] are Other, not retried.
//
// # Why aws-sdk-go-v2, and only its signer
//
// Bedrock needs SigV4 signing, AWS credentials (profiles, SSO, web
// identity, container and instance roles) and the binary event-stream
// framing. The SDK brings the first two, maintained by AWS: [New] takes an
// aws.Config, whose credential providers the caller picks (the config
// package's whole chain, which links the STS, SSO, SSO-OIDC and sign-in
// clients, only in a program that asks for it), and signs each request with
// the SDK's aws/signer/v4.
//
// The SDK's service/bedrockruntime client is not used. Its cost is paid by
// every program that links the adapter, at every start: its schemas
// package and endpoint rules allocate 462 KB at package initialisation
// (aws/aws-sdk-go-v2#3432) and the client is 1.5 MB of a stripped binary,
// which an AgentCore container, started for each session, pays again and
// again. Its event-stream reader cost about 55 allocations a text delta
// against the budget of 3 and shared decoder state between concurrent
// calls, and its request body made net/http close the connection under a
// response that arrived quickly (smithy-go v1.28.9). The adapter instead
// writes the request body (the Converse API's JSON, in the service model's
// member names; a test holds it to what the SDK's serialiser writes for
// the same requests), reads AWS JSON error responses, and reads the event
// stream itself, checking both CRC-32s of every message and bounding its
// size before reading it. docs/providers.md gives the details and
// examples/agentcore/README.md the figures.
package bedrock
