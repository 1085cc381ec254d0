package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
)

// SearchResult is one hit of a web search.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// SearchBackend runs a web search. Implementations: [Brave], [Tavily].
type SearchBackend interface {
	Search(ctx context.Context, query string, count int) ([]SearchResult, error)
}

// The WebSearch bounds.
const (
	DefaultSearchCount = 5
	MaxSearchCount     = 20
	maxQueryLen        = 400
)

// SearchArgs are the arguments of the WebSearch tool.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"the search query"`
	Count int    `json:"count,omitempty" jsonschema:"how many results (default 5, at most 20)"`
}

// Search is the WebSearch tool: a query through a [SearchBackend],
// answered with a list of title, URL and snippet. Its effect is
// SideEffect.
type Search struct {
	inner   helikon.Tool
	backend SearchBackend
}

// NewSearch returns the WebSearch tool on backend.
func NewSearch(backend SearchBackend) (*Search, error) {
	if backend == nil {
		return nil, errors.New("web: NewSearch: nil backend")
	}
	s := &Search{backend: backend}
	inner, err := helikon.NewTool("WebSearch", "Search the web; returns results with title, url and snippet.", s.call)
	if err != nil {
		return nil, err
	}
	s.inner = inner
	return s, nil
}

// Name returns "WebSearch".
func (s *Search) Name() string { return s.inner.Name() }

// Description returns the text the model reads.
func (s *Search) Description() string { return s.inner.Description() }

// InputSchema returns the schema of [SearchArgs].
func (s *Search) InputSchema() *jsonschema.Schema { return s.inner.InputSchema() }

// Call runs the search.
func (s *Search) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	return s.inner.Call(tc, args)
}

// Effect returns SideEffect: the query leaves this host.
func (s *Search) Effect() helikon.ToolEffect { return helikon.SideEffect }

func (s *Search) call(tc *helikon.ToolContext, in SearchArgs) ([]SearchResult, error) {
	if in.Query == "" || len(in.Query) > maxQueryLen {
		return nil, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "WebSearch", SchemaErrors: []string{fmt.Sprintf("query: %d bytes, want 1 to %d", len(in.Query), maxQueryLen)}}
	}
	n := in.Count
	if n == 0 {
		n = DefaultSearchCount
	}
	if n < 0 || n > MaxSearchCount {
		return nil, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "WebSearch", SchemaErrors: []string{fmt.Sprintf("count: %d, want 1 to %d", in.Count, MaxSearchCount)}}
	}
	res, err := s.backend.Search(tc, in.Query, n)
	if err != nil {
		if tc.Err() != nil {
			return nil, tc.Err()
		}
		return nil, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: "WebSearch", Err: err}
	}
	if len(res) > n {
		res = res[:n]
	}
	if res == nil {
		res = []SearchResult{}
	}
	return res, nil
}
