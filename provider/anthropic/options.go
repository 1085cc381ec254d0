package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// DefaultBaseURL is the Anthropic API root used unless [WithBaseURL] names
// another.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header every request carries. It is
// pinned here, not taken from a dependency, so that no upgrade changes the
// API semantics under a program.
const APIVersion = "2023-06-01"

// DefaultMaxTokens is the max_tokens sent when neither the request's
// MaxOutputTokens nor [WithMaxTokens] sets one (the API requires a value).
const DefaultMaxTokens = 4096

// ErrNoAPIKey is returned by [Messages] when no API key was given and
// ANTHROPIC_API_KEY is unset while the base URL is Anthropic's own.
var ErrNoAPIKey = errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or pass anthropic.WithAPIKey")

// Option configures a model built by [Messages].
type Option func(*config)

type config struct {
	apiKey    string
	apiKeySet bool
	baseURL   string
	client    *http.Client
	header    http.Header
	maxTokens int
	thinking  int
	cache     CacheStrategy
	// toolOutput synthesises structured output with a forced tool call.
	toolOutput bool
	caps       *helikon.ModelCapabilities
	maxEvent   int
}

// CacheStrategy says where the adapter places prompt-cache breakpoints
// (cache_control: ephemeral). Each breakpoint caches the prompt prefix up to
// and including it; the API allows four, the adapter uses at most three.
type CacheStrategy struct {
	// System marks the end of the system prompt.
	System bool
	// Tools marks the last tool definition.
	Tools bool
	// Tail marks the last block of the conversation, so the next turn reads
	// the whole history so far from the cache.
	Tail bool
}

// CacheAll places a breakpoint on the system prompt, the tools and the
// conversation tail: the usual choice for a multi-turn agent.
var CacheAll = CacheStrategy{System: true, Tools: true, Tail: true}

// WithAPIKey sets the API key, replacing the ANTHROPIC_API_KEY default.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey, c.apiKeySet = key, true } }

// WithBaseURL sets the API root (default [DefaultBaseURL]), e.g. for a proxy.
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithHTTPClient sets the client requests go through (default: a client on
// [http.DefaultTransport] with no overall timeout; bound calls with their
// context).
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.client = client } }

// WithMaxEventSize bounds one line or event of the response stream, in
// bytes (default 8 MiB). A stream sending a larger one fails with a
// non-retryable error instead of growing memory without bound.
func WithMaxEventSize(n int) Option { return func(c *config) { c.maxEvent = n } }

// WithHeader adds a header to every request, e.g. "anthropic-beta".
func WithHeader(key, value string) Option { return func(c *config) { c.header.Add(key, value) } }

// WithMaxTokens sets the default max_tokens (see [DefaultMaxTokens]).
func WithMaxTokens(n int) Option { return func(c *config) { c.maxTokens = n } }

// WithExtendedThinking turns on extended thinking with a budget of
// budgetTokens (at least 1024). Thinking streams as ReasoningDelta events;
// the thinking blocks and their signatures are sent back on the next turn,
// as the API requires when tools are in use. max_tokens is raised above the
// budget when it would not leave room for an answer.
func WithExtendedThinking(budgetTokens int) Option {
	return func(c *config) { c.thinking = budgetTokens }
}

// WithToolStructuredOutput makes structured output ride on a forced tool
// call instead of the native output_config.format, for models that predate
// native structured output. The tool's input streams as the answer text.
func WithToolStructuredOutput() Option { return func(c *config) { c.toolOutput = true } }

// WithCacheStrategy sets where prompt-cache breakpoints go (default: none).
func WithCacheStrategy(s CacheStrategy) Option { return func(c *config) { c.cache = s } }

// WithCapabilities overrides the capabilities the model reports, for
// Anthropic-compatible gateways that lack some of the API's features.
func WithCapabilities(caps helikon.ModelCapabilities) Option {
	return func(c *config) { c.caps = &caps }
}

// newConfig applies opts over the defaults; ANTHROPIC_API_KEY is read here
// and only when no key was given.
func newConfig(model string, opts []Option) (config, error) {
	c := config{header: http.Header{}, maxTokens: DefaultMaxTokens}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case strings.TrimSpace(model) == "":
		return c, errors.New("anthropic: empty model id")
	case c.maxTokens <= 0:
		return c, fmt.Errorf("anthropic: max tokens %d must be positive", c.maxTokens)
	case c.maxEvent < 0:
		return c, fmt.Errorf("anthropic: max event size %d is negative", c.maxEvent)
	case c.thinking != 0 && c.thinking < 1024:
		return c, fmt.Errorf("anthropic: thinking budget %d is below the API minimum of 1024", c.thinking)
	}
	if c.baseURL == "" {
		c.baseURL = DefaultBaseURL
	}
	base, err := httpx.BaseURL(c.baseURL)
	if err != nil {
		return c, fmt.Errorf("anthropic: base URL: %w", err)
	}
	c.baseURL = base
	if !c.apiKeySet {
		c.apiKey = os.Getenv("ANTHROPIC_API_KEY")
	}
	if c.apiKey == "" && c.baseURL == DefaultBaseURL {
		return c, ErrNoAPIKey
	}
	if c.apiKey != "" {
		c.header.Set("X-Api-Key", c.apiKey)
	}
	c.header.Set("Anthropic-Version", APIVersion)
	if c.client == nil {
		c.client = &http.Client{}
	}
	return c, nil
}
