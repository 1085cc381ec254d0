package bedrock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/paigasus/helikon"
)

// ConverseStreamer is the one call the adapter makes; a
// *bedrockruntime.Client is one.
type ConverseStreamer interface {
	ConverseStream(ctx context.Context, in *bedrockruntime.ConverseStreamInput, opts ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseStreamOutput, error)
}

// Option configures a model built by [New] or [NewFromClient].
type Option func(*settings)

type settings struct {
	native     bool
	thinking   int
	maxTokens  int32
	maxEvent   int
	caps       *helikon.ModelCapabilities
	logger     *slog.Logger
	clientOpts []func(*bedrockruntime.Options)
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

// WithClientOptions adjusts the bedrockruntime client [New] builds, e.g. its BaseEndpoint.
func WithClientOptions(opts ...func(*bedrockruntime.Options)) Option {
	return func(s *settings) { s.clientOpts = append(s.clientOpts, opts...) }
}

// Model is a [helikon.Model] on Bedrock's ConverseStream API. It is safe
// for concurrent use.
type Model struct {
	id     string
	family Family
	client ConverseStreamer
	cfgReg string
	// creds, set by New, is resolved before each call, so a
	// missing credential fails as such rather than as a transport error
	// deep inside the SDK's signing.
	creds  aws.CredentialsProvider
	s      settings
	warned sync.Once
}

// ErrNoRegion is returned by [New] when the AWS configuration names no
// region.
var ErrNoRegion = errors.New("bedrock: no AWS region: set AWS_REGION (or a region in the AWS_PROFILE's config); credentials come from the AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, roles)")

// New returns a model on a bedrockruntime client built from cfg; it fails
// with [ErrNoRegion] when cfg names no region. The standard AWS
// configuration (environment, shared config and credentials files, SSO, web
// identity, container and instance roles) is the SDK's config package's:
//
//	cfg, err := config.LoadDefaultConfig(ctx)
//	if err != nil {
//		return err
//	}
//	model, err := bedrock.New(cfg, modelID)
//
// Credentials resolve lazily: none found surfaces as the first Invoke's
// error, a final one wrapping [ErrNoCredentials] and naming the variables
// to set, before anything is sent; credentials the service refuses come
// back as its AccessDenied or signature error. The client does not retry:
// retries are [helikon]'s retry.Model's to make, on the typed errors this
// adapter reports.
func New(cfg aws.Config, modelID string, opts ...Option) (*Model, error) {
	if cfg.Region == "" {
		return nil, ErrNoRegion
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	// One credentials cache, the client's and the adapter's own check's,
	// so the chain is walked once and not again until the credentials
	// expire.
	var creds aws.CredentialsProvider
	if cfg.Credentials != nil {
		if c, ok := cfg.Credentials.(*aws.CredentialsCache); ok {
			creds = c
		} else {
			creds = aws.NewCredentialsCache(cfg.Credentials)
		}
	}
	copts := append([]func(*bedrockruntime.Options){func(o *bedrockruntime.Options) {
		o.Retryer = aws.NopRetryer{}
		if creds != nil {
			o.Credentials = creds
		}
	}}, s.clientOpts...)
	m, err := newModel(bedrockruntime.NewFromConfig(cfg, copts...), modelID, s)
	if err != nil {
		return nil, err
	}
	m.cfgReg, m.creds = cfg.Region, creds
	return m, nil
}

// NewFromClient returns a model on a client the caller built (its retry
// and endpoint settings are kept as they are).
func NewFromClient(client ConverseStreamer, modelID string, opts ...Option) (*Model, error) {
	if client == nil {
		return nil, errors.New("bedrock: nil client")
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	m, err := newModel(client, modelID, s)
	if err != nil {
		return nil, err
	}
	if c, ok := client.(*bedrockruntime.Client); ok {
		m.cfgReg = c.Options().Region
	}
	return m, nil
}

func newModel(client ConverseStreamer, id string, s settings) (*Model, error) {
	switch {
	case strings.TrimSpace(id) == "":
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
	s.native = s.native || nativeOutput(id)
	return &Model{id: id, family: DetectFamily(id), client: client, s: s}, nil
}

// Provider returns "bedrock".
func (m *Model) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *Model) ModelID() string { return m.id }

// Family returns the model family detected from the id.
func (m *Model) Family() Family { return m.family }

// Capabilities reports what the model supports on Converse. StructuredOutput
// is false for the families that get no forced tool (Titan, Llama, Cohere,
// unknown) unless native structured output was asked for: for those a
// response format degrades to plain text.
func (m *Model) Capabilities() helikon.ModelCapabilities {
	if m.s.caps != nil {
		return *m.s.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: m.family == FamilyAnthropic,
		StructuredOutput: m.s.native || m.family.forcedToolOutput(), Reasoning: m.s.thinking > 0,
		Vision:        m.family == FamilyAnthropic || m.family == FamilyNova || m.family == FamilyMistral || m.family == FamilyLlama,
		PromptCaching: m.family == FamilyAnthropic || m.family == FamilyNova}
}

func (m *Model) region() string {
	if m.cfgReg == "" {
		return "(unknown)"
	}
	return m.cfgReg
}

// Invoke streams one Converse turn.
func (m *Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		in, outputTool, err := m.request(req)
		if err != nil {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: providerName, Message: "invalid request", Err: err})
			return
		}
		if me := m.checkCredentials(ctx); me != nil {
			yield(nil, me)
			return
		}
		hc := &httpClient{}
		out, err := m.client.ConverseStream(ctx, in, hc.install)
		if err != nil {
			yield(nil, m.classify(ctx, err))
			return
		}
		d := decoder{outputTool: outputTool}
		if hc.body != nil {
			defer hc.body.Close()
			if stream := out.GetStream(); stream != nil {
				stream.Close() // the reader was not removed; it saw an empty body
			}
			m.readWire(ctx, &frameReader{r: hc.body, max: m.s.maxEvent}, &d, yield)
			return
		}
		// A ConverseStreamer that did not pass the call's options on: read
		// the events the SDK decoded.
		stream := out.GetStream()
		if stream == nil {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: providerName, Message: "ConverseStream returned no event stream"})
			return
		}
		defer stream.Close()
		for {
			select {
			case <-ctx.Done():
				yield(nil, m.classify(ctx, ctx.Err()))
				return
			case ev, ok := <-stream.Events():
				if !ok {
					if err := stream.Err(); err != nil {
						yield(nil, m.classify(ctx, err))
						return
					}
					d.end(yield)
					return
				}
				if !d.handle(ev, yield) {
					return
				}
			}
		}
	}
}

// ErrNoCredentials is wrapped by the error an Invoke returns when the AWS
// credential chain yields no credentials. It is not retryable: the
// configuration has to change.
var ErrNoCredentials = errors.New("bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (shared config, SSO, roles)")

// checkCredentials resolves the credentials (from the cache after the
// first call) and reports a failure as a ModelError naming what to set.
func (m *Model) checkCredentials(ctx context.Context) *helikon.ModelError {
	if m.creds == nil {
		return nil
	}
	_, err := m.creds.Retrieve(ctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return m.classify(ctx, err)
	}
	return &helikon.ModelError{Kind: helikon.ModelOther, Provider: providerName,
		Message: "model " + m.id + " in region " + m.region(), Err: fmt.Errorf("%w: %w", ErrNoCredentials, err)}
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
