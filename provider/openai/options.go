package openai

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// DefaultBaseURL is the OpenAI API root used when neither [WithBaseURL] nor
// OPENAI_BASE_URL names another.
const DefaultBaseURL = "https://api.openai.com/v1"

// ErrNoAPIKey is returned by the constructors when no API key was given and
// OPENAI_API_KEY is unset while the base URL is OpenAI's own.
var ErrNoAPIKey = errors.New("openai: no API key: set OPENAI_API_KEY or pass openai.WithAPIKey")

// Option configures a model built by [Chat] or [Responses].
type Option func(*config)

type config struct {
	apiKey    string
	apiKeySet bool
	baseURL   string
	client    *http.Client
	header    http.Header
	caps      *helikon.ModelCapabilities
	maxEvent  int
	// reasoningField names the assistant-message field reasoning goes
	// back in; reasoningSet records an explicit choice.
	reasoningField string
	reasoningSet   bool
}

// The assistant-message fields [WithReasoningInHistory] can carry
// reasoning back in.
const (
	// ReasoningContentField is DeepSeek's (and xAI's) field.
	ReasoningContentField = "reasoning_content"
	// ReasoningField is the field OpenRouter, Groq, Ollama and newer vLLM
	// stream reasoning in.
	ReasoningField = "reasoning"
)

// WithReasoningInHistory makes [ChatModel] send the reasoning of each
// tool-calling assistant turn back in field ([ReasoningContentField] or
// [ReasoningField]; "" sends none). DeepSeek's thinking mode requires it
// ("reasoning_content", the default when the base URL is DeepSeek's API)
// and answers 400 without it; OpenAI's API has no such field, so the
// default elsewhere is none. Streamed reasoning is read from either field
// whatever this says.
func WithReasoningInHistory(field string) Option {
	return func(c *config) { c.reasoningField, c.reasoningSet = field, true }
}

// WithAPIKey sets the API key, replacing the OPENAI_API_KEY default. An
// empty key sends no Authorization header (local servers need none).
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey, c.apiKeySet = key, true }
}

// WithBaseURL sets the API root, e.g. "http://localhost:11434/v1" for Ollama
// or "https://openrouter.ai/api/v1", replacing the OPENAI_BASE_URL default.
func WithBaseURL(url string) Option {
	return func(c *config) { c.baseURL = url }
}

// WithHTTPClient sets the client requests go through (default: a client on
// [http.DefaultTransport] with no overall timeout, since streams are long;
// bound a call with its context instead).
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.client = client }
}

// WithHeader adds a header to every request, e.g. "OpenAI-Organization" or a
// gateway's routing header.
func WithHeader(key, value string) Option {
	return func(c *config) { c.header.Add(key, value) }
}

// WithMaxEventSize bounds one line or event of the response stream, in
// bytes (default 8 MiB). A stream sending a larger one fails with a
// non-retryable error instead of growing memory without bound.
func WithMaxEventSize(n int) Option {
	return func(c *config) { c.maxEvent = n }
}

// WithCapabilities overrides the capabilities the model reports, for
// OpenAI-compatible servers that lack some of OpenAI's features.
func WithCapabilities(caps helikon.ModelCapabilities) Option {
	return func(c *config) { c.caps = &caps }
}

// newConfig applies opts over the documented defaults. The environment is
// read here and only here: OPENAI_API_KEY when no key was given,
// OPENAI_BASE_URL when no base URL was given.
func newConfig(model string, opts []Option) (config, error) {
	c := config{header: http.Header{}}
	for _, o := range opts {
		o(&c)
	}
	if strings.TrimSpace(model) == "" {
		return c, errors.New("openai: empty model id")
	}
	if c.maxEvent < 0 {
		return c, fmt.Errorf("openai: max event size %d is negative", c.maxEvent)
	}
	if c.baseURL == "" {
		c.baseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if c.baseURL == "" {
		c.baseURL = DefaultBaseURL
	}
	base, err := httpx.BaseURL(c.baseURL)
	if err != nil {
		return c, fmt.Errorf("openai: base URL: %w", err)
	}
	c.baseURL = base
	switch {
	case c.reasoningField != "" && c.reasoningField != ReasoningContentField && c.reasoningField != ReasoningField:
		return c, fmt.Errorf("openai: reasoning field %q is neither %q nor %q", c.reasoningField, ReasoningContentField, ReasoningField)
	case !c.reasoningSet && isDeepSeek(base):
		c.reasoningField = ReasoningContentField
	}
	if !c.apiKeySet {
		c.apiKey = os.Getenv("OPENAI_API_KEY")
	}
	// Local OpenAI-compatible servers take no key; OpenAI's own API always
	// does, so an empty key there fails here rather than as a 401 later.
	if c.apiKey == "" && c.baseURL == DefaultBaseURL {
		return c, ErrNoAPIKey
	}
	if c.apiKey != "" {
		c.header.Set("Authorization", "Bearer "+c.apiKey)
	}
	if c.client == nil {
		c.client = &http.Client{}
	}
	return c, nil
}

// isDeepSeek reports whether base is DeepSeek's own API.
func isDeepSeek(base string) bool {
	u, err := url.Parse(base)
	return err == nil && (u.Hostname() == "api.deepseek.com" || strings.HasSuffix(u.Hostname(), ".deepseek.com"))
}

func (c *config) endpoint(url string) httpx.Endpoint {
	return httpx.Endpoint{Provider: providerName, Client: c.client, URL: url, Header: c.header, Classify: classifyHTTP, MaxEvent: c.maxEvent}
}
