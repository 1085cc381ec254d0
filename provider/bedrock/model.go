package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/encoding/httpbinding"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// Option configures a model built by [New].
type Option func(*settings)

type settings struct {
	native    bool
	thinking  int
	maxTokens int32
	maxEvent  int
	caps      *helikon.ModelCapabilities
	logger    *slog.Logger
	endpoint  string
	cache     CacheStrategy
}

// WithNativeStructuredOutput asks for structured output through Bedrock's
// own JSON-schema output (outputConfig.textFormat) instead of a forced
// tool. The Claude models documented to support it (Haiku 4.5, Sonnet 4.5
// and 4.6, Opus 4.5 and 4.6) get it without the option; it is for the
// other models that support it.
func WithNativeStructuredOutput() Option { return func(s *settings) { s.native = true } }

// WithThinking turns on Anthropic extended thinking on Bedrock with a
// budget of budgetTokens; the reasoning streams as ReasoningDelta and its
// signature goes back on the next turn.
func WithThinking(budgetTokens int) Option { return func(s *settings) { s.thinking = budgetTokens } }

// WithMaxTokens sets the default maximum output tokens.
func WithMaxTokens(n int) Option { return func(s *settings) { s.maxTokens = int32(n) } }

// WithMaxEventSize sets the limit on one event-stream message, in bytes
// (default 8 MiB): a larger one fails the stream with a non-retryable
// error before its payload is read.
func WithMaxEventSize(n int) Option { return func(s *settings) { s.maxEvent = n } }

// WithCapabilities overrides the capabilities the model reports.
func WithCapabilities(caps helikon.ModelCapabilities) Option {
	return func(s *settings) { s.caps = &caps }
}

// WithLogger sets where the once-per-model warning about degraded
// structured output goes (default [slog.Default]).
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithBaseEndpoint sends requests to url (an absolute http or https URL,
// e.g. https://bedrock-runtime-fips.us-east-1.amazonaws.com, a VPC
// endpoint or a test server) instead of the region's Bedrock Runtime
// endpoint; it takes precedence over aws.Config.BaseEndpoint. Requests are
// still signed for the configuration's region.
func WithBaseEndpoint(url string) Option { return func(s *settings) { s.endpoint = url } }

// CacheStrategy says where the model places Converse cache points, each
// caching the prompt up to it for the next requests that start the same
// way. Claude models on Bedrock take all three, Amazon Nova's the system
// prompt and the conversation; other families get none (their
// Capabilities report no PromptCaching). A cache point before the model's
// minimum cacheable length (1,024 tokens for most Claude models) caches
// nothing; cached reads and writes come back in [helikon.Usage]'s
// CachedInputTokens and CacheWriteTokens.
type CacheStrategy struct {
	// System caches the system prompt.
	System bool
	// Tools caches the tool definitions (Claude only).
	Tools bool
	// Tail caches the whole conversation so far, so the next turn reads it
	// from the cache.
	Tail bool
}

// CacheAll caches the system prompt, the tools and the conversation: the
// usual choice for a multi-turn agent.
var CacheAll = CacheStrategy{System: true, Tools: true, Tail: true}

// WithCacheStrategy places cache points as cs says (default: none, since
// a cache write costs more than plain input).
func WithCacheStrategy(cs CacheStrategy) Option { return func(s *settings) { s.cache = cs } }

// Model is a [helikon.Model] on Bedrock's ConverseStream API. It is safe
// for concurrent use.
type Model struct {
	id     string
	family Family
	region string
	// url is the model's ConverseStream URL, its model id escaped.
	url    string
	http   aws.HTTPClient
	signer *v4.Signer
	// creds is resolved before each call, so that a missing credential
	// fails as such, before anything is sent.
	creds aws.CredentialsProvider
	// bearer is a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK), sent
	// instead of a signature when set, as the SDK's client did.
	bearer string
	s      settings
	warned sync.Once
	// skew is the server's clock less ours, in nanoseconds, learnt from a
	// request refused for a clock skew (see send); requests are signed at
	// time.Now() plus it.
	skew atomic.Int64
}

// ErrNoRegion is returned by [New] when the AWS configuration names no
// region.
var ErrNoRegion = errors.New("bedrock: no AWS region: set AWS_REGION (or a region in the AWS_PROFILE's config); credentials come from the AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, roles)")

// New returns a model that calls Bedrock Runtime's ConverseStream in
// cfg's region, signing each request with SigV4 (aws-sdk-go-v2's signer)
// with cfg's credentials and sending it through cfg.HTTPClient (default
// [http.DefaultClient]); it fails with [ErrNoRegion] when cfg names no
// region. The standard AWS configuration (environment, shared config and
// credentials files, SSO, web identity, container and instance roles) is
// the SDK's config package's:
//
//	cfg, err := config.LoadDefaultConfig(ctx)
//	if err != nil {
//		return err
//	}
//	model, err := bedrock.New(cfg, modelID)
//
// The endpoint is [WithBaseEndpoint]'s, else the one the configuration
// names for Bedrock Runtime (AWS_ENDPOINT_URL_BEDROCK_RUNTIME or a
// profile's services section, then cfg.BaseEndpoint), else
// https://bedrock-runtime.{region}.amazonaws.com (.com.cn in the China
// regions); New refuses a configuration asking for the FIPS or dual-stack
// endpoint without naming one. With a Bedrock API key in
// AWS_BEARER_TOKEN_BEDROCK, requests carry it as a bearer token instead of
// a signature, as the SDK's client sent them.
// Credentials resolve lazily: none found (or cfg.Credentials nil)
// surfaces as the first Invoke's error, a final one wrapping
// [ErrNoCredentials] and naming the variables to set, before anything is
// sent; credentials the service refuses come back as its AccessDenied or
// signature error. A request refused for a clock skew (the machine's clock
// over 4 minutes from the server's Date) is sent once more, signed at the
// server's time, which later requests keep, as the SDK's clients correct
// skew. Nothing else is retried: retries are [helikon]'s retry.Model's to
// make, on the typed errors this adapter reports.
func New(cfg aws.Config, modelID string, opts ...Option) (*Model, error) {
	if cfg.Region == "" {
		return nil, ErrNoRegion
	}
	if !validRegion(cfg.Region) {
		return nil, fmt.Errorf("bedrock: region %q is not an AWS region name", cfg.Region)
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	switch {
	case strings.TrimSpace(modelID) == "":
		return nil, errors.New("bedrock: empty model id")
	case s.thinking < 0 || s.maxTokens < 0 || s.maxEvent < 0:
		return nil, errors.New("bedrock: negative thinking budget, max tokens or max event size")
	}
	if s.maxEvent == 0 {
		s.maxEvent = defaultMaxEventSize
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.native = s.native || nativeOutput(modelID)
	base := defaultEndpoint(cfg.Region)
	if s.endpoint == "" {
		s.endpoint = configuredEndpoint(cfg)
	}
	if s.endpoint == "" {
		if err := endpointVariant(cfg); err != nil {
			return nil, err
		}
	}
	if s.endpoint != "" {
		var err error
		if base, err = httpx.BaseURL(s.endpoint); err != nil {
			return nil, fmt.Errorf("bedrock: base endpoint: %w", err)
		}
		if strings.ContainsAny(base, "?#") {
			// The model's path would land in the query or the fragment.
			return nil, fmt.Errorf("bedrock: base endpoint %q has a query or fragment", s.endpoint)
		}
	}
	m := &Model{id: modelID, family: DetectFamily(modelID), region: cfg.Region, s: s,
		url:    base + "/model/" + httpbinding.EscapePath(modelID, true) + "/converse-stream",
		http:   cfg.HTTPClient,
		signer: v4.NewSigner(),
		bearer: os.Getenv(bearerTokenEnv),
	}
	if m.http == nil {
		m.http = http.DefaultClient
	}
	// One credentials cache, so the chain is walked once and not again
	// until the credentials expire.
	if cfg.Credentials != nil {
		if c, ok := cfg.Credentials.(*aws.CredentialsCache); ok {
			m.creds = c
		} else {
			m.creds = aws.NewCredentialsCache(cfg.Credentials)
		}
	}
	return m, nil
}

// Provider returns "bedrock".
func (m *Model) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *Model) ModelID() string { return m.id }

// Family returns the model family detected from the id.
func (m *Model) Family() Family { return m.family }

// Capabilities reports what the model supports on Converse. PromptCaching
// is true for the families [WithCacheStrategy] places cache points for
// (Anthropic, Nova). StructuredOutput
// is false for the families that get no forced tool (Titan, Llama, Cohere,
// unknown) unless native structured output was asked for: for those a
// response format degrades to plain text.
func (m *Model) Capabilities() helikon.ModelCapabilities {
	if m.s.caps != nil {
		return *m.s.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: m.family == FamilyAnthropic,
		StructuredOutput: m.s.native || m.family.forcedToolOutput(), Reasoning: m.s.thinking > 0,
		Vision:              m.family == FamilyAnthropic || m.family == FamilyNova || m.family == FamilyMistral || m.family == FamilyLlama,
		PromptCaching:       m.family == FamilyAnthropic || m.family == FamilyNova,
		HonoursCancellation: true}
}

// Invoke streams one Converse turn.
func (m *Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		in, outputTool, err := m.request(req)
		var body []byte
		if err == nil {
			body, err = json.Marshal(in)
		}
		if err != nil {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: providerName, Message: "invalid request", Err: err})
			return
		}
		var creds aws.Credentials
		if m.bearer == "" {
			var me *helikon.ModelError
			if creds, me = m.credentials(ctx); me != nil {
				yield(nil, me)
				return
			}
		}
		stream, err := m.send(ctx, creds, body)
		if err != nil {
			yield(nil, m.classify(ctx, err))
			return
		}
		defer stream.Close()
		m.readWire(ctx, &frameReader{r: stream, max: m.s.maxEvent}, &decoder{outputTool: outputTool}, yield)
	}
}

// ErrNoCredentials is wrapped by the error an Invoke returns when the AWS
// credential chain yields no credentials. It is not retryable: the
// configuration has to change.
var ErrNoCredentials = errors.New("bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (shared config, SSO, roles)")

// errNoProvider is the cause when the configuration has no credentials
// provider at all.
var errNoProvider = errors.New("the aws.Config has no Credentials provider")

// credentials resolves the credentials (from the cache after the first
// call) and reports a failure as a ModelError naming what to set.
func (m *Model) credentials(ctx context.Context) (aws.Credentials, *helikon.ModelError) {
	err := errNoProvider
	if m.creds != nil {
		var creds aws.Credentials
		if creds, err = m.creds.Retrieve(ctx); err == nil {
			return creds, nil
		}
	}
	if ctx.Err() != nil {
		return aws.Credentials{}, m.classify(ctx, err)
	}
	return aws.Credentials{}, &helikon.ModelError{Kind: helikon.ModelOther, Provider: providerName,
		Message: "model " + m.id + " in region " + m.region, Err: fmt.Errorf("%w: %w", ErrNoCredentials, err)}
}

// readWire reads the response's event stream (see wire.go).
func (m *Model) readWire(ctx context.Context, fr *frameReader, d *decoder, yield func(helikon.ModelEvent, error) bool) {
	var f frame
	for {
		err := fr.next(&f)
		if err == io.EOF {
			d.end(yield)
			return
		}
		if err == nil {
			var more bool
			if more, err = d.wire(&f, yield); more {
				continue
			}
		}
		if err != nil {
			yield(nil, m.classify(ctx, err))
		}
		return
	}
}
