package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"golang.org/x/oauth2"
)

// DefaultBaseURL is the Gemini Developer API root used by [New] unless
// [WithBaseURL] names another.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// DefaultLocation is the Vertex AI location [Vertex] uses unless
// [WithLocation] names another: the global endpoint, which serves every
// current Gemini model.
const DefaultLocation = "global"

// ErrNoAPIKey is returned by [New] when no API key was given and neither
// GEMINI_API_KEY nor GOOGLE_API_KEY is set while the base URL is Google's
// own.
var ErrNoAPIKey = errors.New("gemini: no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass gemini.WithAPIKey")

// ErrNoCredentials is returned by [Vertex] when neither [WithBearerToken]
// nor [WithTokenSource] gave it a way to authenticate while the base URL is
// Google's own. [VertexFromEnv] finds Application Default Credentials
// instead.
var ErrNoCredentials = errors.New("gemini: Vertex AI needs credentials: pass gemini.WithTokenSource or gemini.WithBearerToken, or use gemini.VertexFromEnv for Application Default Credentials")

// Option configures a model built by [New], [Vertex] or [VertexFromEnv].
type Option func(*config)

type config struct {
	apiKey    string
	apiKeySet bool
	baseURL   string
	client    *http.Client
	header    http.Header
	maxEvent  int
	caps      *helikon.ModelCapabilities
	thinking  *thinkingConfig
	schemaFmt schemaMode

	// Vertex AI.
	location string
	tokens   oauth2.TokenSource
}

// schemaMode says how structured output is asked for.
type schemaMode uint8

const (
	schemaAuto    schemaMode = iota // by model id
	schemaJSON                      // responseJsonSchema: full JSON Schema
	schemaOpenAPI                   // responseSchema: the OpenAPI subset, sanitised
)

// WithAPIKey sets the Developer API key, replacing the GEMINI_API_KEY and
// GOOGLE_API_KEY defaults.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey, c.apiKeySet = key, true } }

// WithBaseURL sets the API root (default [DefaultBaseURL], or the Vertex AI
// endpoint of the location), e.g. for a proxy.
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithHTTPClient sets the client requests go through (default: a client on
// [http.DefaultTransport] with no overall timeout; bound calls with their
// context).
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.client = client } }

// WithMaxEventSize bounds one line or event of the response stream, in
// bytes (default 8 MiB). A stream sending a larger one fails with a
// non-retryable error instead of growing memory without bound.
func WithMaxEventSize(n int) Option { return func(c *config) { c.maxEvent = n } }

// WithHeader adds a header to every request.
func WithHeader(key, value string) Option { return func(c *config) { c.header.Add(key, value) } }

// WithCapabilities overrides the capabilities the model reports, for
// Gemini-compatible gateways that lack some of the API's features.
func WithCapabilities(caps helikon.ModelCapabilities) Option {
	return func(c *config) { c.caps = &caps }
}

// WithThinking asks for thought summaries (streamed as
// [helikon.ReasoningDelta]) and, when budgetTokens is not zero, sets the
// thinking budget (-1 lets the model decide; 0 is "leave the model's
// default"). The request's ReasoningEffort, when set, is sent as the
// thinking level instead of a budget.
func WithThinking(budgetTokens int) Option {
	return func(c *config) {
		c.thinking = &thinkingConfig{IncludeThoughts: true}
		if budgetTokens != 0 {
			b := budgetTokens
			c.thinking.ThinkingBudget = &b
		}
	}
}

// WithResponseJSONSchema sends structured output as responseJsonSchema
// (full JSON Schema), whatever the model id; the default does so for every
// model but the Gemini 1.x and 2.0 families.
func WithResponseJSONSchema() Option { return func(c *config) { c.schemaFmt = schemaJSON } }

// WithResponseSchema sends structured output as responseSchema, the
// OpenAPI subset older models accept, after [SanitizeSchema] has rewritten
// the schema into it.
func WithResponseSchema() Option { return func(c *config) { c.schemaFmt = schemaOpenAPI } }

// WithLocation sets the Vertex AI location (default [DefaultLocation]).
func WithLocation(location string) Option { return func(c *config) { c.location = location } }

// WithTokenSource authenticates Vertex AI requests with bearer tokens from
// ts (e.g. golang.org/x/oauth2/google credentials of a service account).
func WithTokenSource(ts oauth2.TokenSource) Option { return func(c *config) { c.tokens = ts } }

// WithBearerToken authenticates Vertex AI requests with a fixed access
// token, e.g. the output of "gcloud auth print-access-token".
func WithBearerToken(token string) Option {
	return func(c *config) { c.tokens = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}) }
}

func newConfig(model string, opts []Option) (config, error) {
	c := config{header: http.Header{}}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case strings.TrimSpace(model) == "":
		return c, errors.New("gemini: empty model id")
	case strings.ContainsAny(strings.TrimPrefix(model, "models/"), "/?#:% "):
		return c, fmt.Errorf("gemini: model id %q has characters a model id cannot hold", model)
	case c.maxEvent < 0:
		return c, fmt.Errorf("gemini: max event size %d is negative", c.maxEvent)
	}
	if c.client == nil {
		c.client = &http.Client{}
	}
	return c, nil
}

// developerKey applies the Developer API key rules: an explicit key, else
// GEMINI_API_KEY, else GOOGLE_API_KEY; nothing else is read.
func (c *config) developerKey() error {
	if !c.apiKeySet {
		c.apiKey = os.Getenv("GEMINI_API_KEY")
		if c.apiKey == "" {
			c.apiKey = os.Getenv("GOOGLE_API_KEY")
		}
	}
	if c.apiKey == "" && c.baseURL == DefaultBaseURL {
		return ErrNoAPIKey
	}
	if c.apiKey != "" {
		c.header.Set("X-Goog-Api-Key", c.apiKey)
	}
	return nil
}

func (c *config) base(def string) error {
	if c.baseURL == "" {
		c.baseURL = def
	}
	base, err := httpx.BaseURL(c.baseURL)
	if err != nil {
		return fmt.Errorf("gemini: base URL: %w", err)
	}
	c.baseURL = base
	return nil
}
