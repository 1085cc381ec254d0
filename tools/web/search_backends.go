package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

// maxSearchResponse caps a search API's response body.
const maxSearchResponse = 4 << 20

// Endpoints of the search APIs.
const (
	BraveEndpoint  = "https://api.search.brave.com/res/v1/web/search"
	TavilyEndpoint = "https://api.tavily.com/search"
)

// BackendOption configures [NewBrave] and [NewTavily].
type BackendOption func(*apiClient)

// WithAPIKey sets the API key (default from the environment:
// BRAVE_API_KEY or TAVILY_API_KEY).
func WithAPIKey(key string) BackendOption { return func(c *apiClient) { c.key = key } }

// WithEndpoint replaces the API's URL (a regional endpoint, a test server).
func WithEndpoint(u string) BackendOption { return func(c *apiClient) { c.endpoint = u } }

// WithHTTPClient replaces the HTTP client (default one with a 30 s
// timeout).
func WithHTTPClient(h *http.Client) BackendOption { return func(c *apiClient) { c.http = h } }

type apiClient struct {
	key, endpoint string
	http          *http.Client
}

func newAPIClient(name, env, endpoint string, opts []BackendOption) (apiClient, error) {
	c := apiClient{key: os.Getenv(env), endpoint: endpoint, http: &http.Client{Timeout: 30 * time.Second}}
	for _, o := range opts {
		o(&c)
	}
	if c.key == "" {
		return c, fmt.Errorf("web: %s: no API key (set %s or use WithAPIKey)", name, env)
	}
	if _, err := url.Parse(c.endpoint); err != nil || c.http == nil {
		return c, fmt.Errorf("web: %s: bad endpoint %q or nil client", name, c.endpoint)
	}
	return c, nil
}

// do sends req and decodes a 2xx JSON body of at most maxSearchResponse
// bytes into out.
func (c *apiClient) do(req *http.Request, name string, out any) error {
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchResponse+1))
	if err != nil {
		return fmt.Errorf("%s: read: %w", name, err)
	}
	if len(body) > maxSearchResponse {
		return fmt.Errorf("%s: response past %d bytes", name, maxSearchResponse)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s: %.200s", name, resp.Status, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: decode response: %w", name, err)
	}
	return nil
}

// Brave is the [SearchBackend] of the Brave Web Search API: GET with the
// key in X-Subscription-Token, hits in web.results.
type Brave struct{ c apiClient }

// NewBrave returns the Brave backend.
func NewBrave(opts ...BackendOption) (*Brave, error) {
	c, err := newAPIClient("brave", "BRAVE_API_KEY", BraveEndpoint, opts)
	if err != nil {
		return nil, err
	}
	return &Brave{c: c}, nil
}

// Search runs query on Brave.
func (b *Brave) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	u, _ := url.Parse(b.c.endpoint)
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(count))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.c.key)
	var resp struct {
		Web *struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := b.c.do(req, "brave", &resp); err != nil {
		return nil, err
	}
	var out []SearchResult
	if resp.Web != nil {
		for _, r := range resp.Web.Results {
			out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Description})
		}
	}
	return out, nil
}

// Tavily is the [SearchBackend] of the Tavily Search API: POST of a JSON
// query with the key as a bearer token, hits in results.
type Tavily struct{ c apiClient }

// NewTavily returns the Tavily backend.
func NewTavily(opts ...BackendOption) (*Tavily, error) {
	c, err := newAPIClient("tavily", "TAVILY_API_KEY", TavilyEndpoint, opts)
	if err != nil {
		return nil, err
	}
	return &Tavily{c: c}, nil
}

// Search runs query on Tavily.
func (t *Tavily) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	body, err := json.Marshal(map[string]any{"query": query, "max_results": count})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.c.key)
	var resp struct {
		Results *[]struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := t.c.do(req, "tavily", &resp); err != nil {
		return nil, err
	}
	if resp.Results == nil {
		return nil, errors.New("tavily: response has no results field")
	}
	var out []SearchResult
	for _, r := range *resp.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}
