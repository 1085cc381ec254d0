package gemini

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

const providerName = "gemini"

// cloudPlatformScope is the OAuth scope Vertex AI accepts.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Model is a [helikon.Model] on Gemini's streamGenerateContent endpoint,
// through the Developer API ([New]) or Vertex AI ([Vertex]). It is safe for
// concurrent use.
type Model struct {
	id     string
	cfg    config
	url    string
	vertex bool
	// keyVar names what to check when the API refuses the credentials.
	keyVar string
}

// New returns a model on the Gemini Developer API. The key defaults to
// GEMINI_API_KEY, then GOOGLE_API_KEY; no other environment is read. It
// fails with [ErrNoAPIKey] when there is none and the base URL is Google's
// own.
func New(model string, opts ...Option) (*Model, error) {
	cfg, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.base(DefaultBaseURL); err != nil {
		return nil, err
	}
	if err := cfg.developerKey(); err != nil {
		return nil, err
	}
	id := strings.TrimPrefix(model, "models/")
	return &Model{id: id, cfg: cfg, url: cfg.baseURL + "/v1beta/models/" + id + ":streamGenerateContent?alt=sse",
		keyVar: "the API key (GEMINI_API_KEY or GOOGLE_API_KEY, or gemini.WithAPIKey)"}, nil
}

// Vertex returns a model on Vertex AI in project, authenticated by
// [WithTokenSource] or [WithBearerToken], at [WithLocation] (default
// [DefaultLocation]). It fails with [ErrNoCredentials] when neither is given
// and the base URL is Google's own.
func Vertex(model, project string, opts ...Option) (*Model, error) {
	cfg, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(project) == "" || strings.ContainsAny(project, "/?#") {
		return nil, fmt.Errorf("gemini: Vertex AI project %q is not a project id", project)
	}
	if cfg.location == "" {
		cfg.location = DefaultLocation
	}
	if strings.ContainsAny(cfg.location, "/?#. ") {
		return nil, fmt.Errorf("gemini: Vertex AI location %q is not a location", cfg.location)
	}
	host := "https://" + cfg.location + "-aiplatform.googleapis.com"
	if cfg.location == DefaultLocation {
		host = "https://aiplatform.googleapis.com"
	}
	own := cfg.baseURL == ""
	if err := cfg.base(host); err != nil {
		return nil, err
	}
	if cfg.tokens == nil && own {
		return nil, ErrNoCredentials
	}
	if cfg.tokens != nil {
		// Refresh only when a token has expired, not on every request.
		cfg.tokens = oauth2.ReuseTokenSource(nil, cfg.tokens)
	}
	id := strings.TrimPrefix(model, "models/")
	return &Model{id: id, cfg: cfg, vertex: true,
		url: cfg.baseURL + "/v1/projects/" + project + "/locations/" + cfg.location +
			"/publishers/google/models/" + id + ":streamGenerateContent?alt=sse",
		keyVar: "the Vertex AI credentials (token source, bearer token or Application Default Credentials) and that project " + project + " may use " + id}, nil
}

// VertexFromEnv returns a model on Vertex AI in GOOGLE_CLOUD_PROJECT, at
// GOOGLE_CLOUD_LOCATION (default [DefaultLocation]), authenticated with
// Application Default Credentials (golang.org/x/oauth2/google), unless opts
// give a token source. This is the only constructor that looks for
// credentials on its own.
func VertexFromEnv(ctx context.Context, model string, opts ...Option) (*Model, error) {
	project := os.Getenv("GOOGLE_CLOUD_PROJECT")
	if project == "" {
		return nil, errors.New("gemini: GOOGLE_CLOUD_PROJECT is not set")
	}
	probe, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	var pre []Option
	if loc := os.Getenv("GOOGLE_CLOUD_LOCATION"); loc != "" {
		pre = append(pre, WithLocation(loc))
	}
	if probe.tokens == nil {
		creds, err := google.FindDefaultCredentials(ctx, cloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("gemini: Application Default Credentials: %w", err)
		}
		pre = append(pre, WithTokenSource(creds.TokenSource))
	}
	return Vertex(model, project, append(pre, opts...)...)
}

// Provider returns "gemini".
func (m *Model) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *Model) ModelID() string { return m.id }

// Capabilities reports what the Gemini API supports. StructuredOutput
// holds, but not together with tools: such a request fails with
// [ErrStructuredOutputWithTools] before it is sent.
func (m *Model) Capabilities() helikon.ModelCapabilities {
	if m.cfg.caps != nil {
		return *m.cfg.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: true,
		StructuredOutput: true, Reasoning: m.cfg.thinking != nil, Vision: true, PromptCaching: true,
		HonoursCancellation: true}
}

// Invoke streams one generateContent turn.
func (m *Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		r, err := m.request(req)
		body, err := httpx.Encode(providerName, r, err)
		if err != nil {
			yield(nil, err)
			return
		}
		header, me := m.authHeader()
		if me != nil {
			yield(nil, me)
			return
		}
		d := decoder{}
		e := httpx.Endpoint{Provider: providerName, Client: m.cfg.client, URL: m.url, Header: header,
			Classify: m.classifyHTTP, MaxEvent: m.cfg.maxEvent}
		httpx.StreamToEOF(ctx, e, body, yield, func(data []byte) bool { return d.handle(data, yield) },
			func() bool { return d.atEOF(yield) })
	}
}

// authHeader is the static header, with a Vertex AI bearer token added.
func (m *Model) authHeader() (http.Header, *helikon.ModelError) {
	if m.cfg.tokens == nil {
		return m.cfg.header, nil
	}
	tok, err := m.cfg.tokens.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		kind := helikon.ModelTransport
		if errors.As(err, &re) {
			kind = helikon.ModelOther // the credentials were refused
		}
		return nil, &helikon.ModelError{Kind: kind, Provider: providerName, Message: "Vertex AI access token", Err: err}
	}
	h := m.cfg.header.Clone()
	h.Set("Authorization", "Bearer "+tok.AccessToken)
	return h, nil
}
