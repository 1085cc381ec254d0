package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
	"go.uber.org/goleak"
)

// goServer returns a go-sdk server offering n trivial tools tool-0…tool-n-1,
// listing pageSize per page.
func goServer(n, pageSize int) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "go-test", Version: "0"}, &sdk.ServerOptions{PageSize: pageSize})
	for i := range n {
		addEchoTool(s, fmt.Sprintf("tool-%d", i), fmt.Sprintf("Tool number %d.", i))
	}
	return s
}

// echoSchema is shared by the trivial tools: inferring one per tool would
// make a 10,000-tool server slow to build.
var echoSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"text": {Type: "string"}}}

func addEchoTool(s *sdk.Server, name, description string) {
	s.AddTool(&sdk.Tool{Name: name, Description: description, InputSchema: echoSchema}, echoHandler)
}

func echoHandler(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil
}

// connectInMemory serves s in process and connects a client to it.
func connectInMemory(t testing.TB, s *sdk.Server, opts ...mcp.ClientOption) *mcp.Client {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcp.Connect(context.Background(), ct, opts...)
	if err != nil {
		ss.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		ss.Wait()
	})
	return c
}

func TestConnect_FetchesEveryPage(t *testing.T) {
	c := connectInMemory(t, goServer(7, 2))
	tools, _ := c.Tools(context.Background())
	if len(tools) != 7 || tools[0].Name() != "tool-0" || tools[6].Name() != "tool-6" {
		t.Fatalf("got %d tools, want all 7 across 4 pages", len(tools))
	}
}

func TestConnect_TenThousandTools(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("accepted", func(t *testing.T) {
		c := connectInMemory(t, goServer(manyTools, 0), mcp.WithLazy())
		tools, _ := c.Tools(context.Background())
		if len(tools) != manyTools+1 {
			t.Fatalf("got %d tools, want %d and search_tools", len(tools), manyTools)
		}
	})
	t.Run("over the cap", func(t *testing.T) {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := goServer(1001, 0).Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Wait()
		_, err = mcp.Connect(context.Background(), ct, mcp.WithMaxTools(1000))
		if !mcp.IsKind(err, mcp.KindConnect) || !strings.Contains(err.Error(), "more than 1000 tools") {
			t.Fatalf("err = %v, want a connect error naming the cap", err)
		}
	})
}

func TestLazy_PlaceholderSchemasAndSearch(t *testing.T) {
	s := goServer(30, 0)
	addEchoTool(s, "Weather", "Current WEATHER for a city.")
	c := connectInMemory(t, s, mcp.WithLazy(), mcp.WithToolPrefix("x_"))
	tools, _ := c.Tools(context.Background())
	search := tools[len(tools)-1]
	if search.Name() != "x_search_tools" || helikon.EffectOf(search) != helikon.ReadOnly {
		t.Fatalf("last tool = %q, want x_search_tools", search.Name())
	}
	placeholder, _ := json.Marshal(tools[0].InputSchema())
	if string(placeholder) != `{"type":"object","additionalProperties":true}` {
		t.Fatalf("placeholder = %s", placeholder)
	}
	type hit struct {
		Name        string             `json:"name"`
		InputSchema *jsonschema.Schema `json:"input_schema"`
	}
	type result struct {
		Tools        []hit `json:"tools"`
		TotalMatches int   `json:"total_matches"`
		Truncated    *bool `json:"truncated"`
	}
	for _, tc := range []struct {
		query     string
		hits, all int
		truncated bool
	}{
		{"tool number", 20, 30, true}, // capped
		{"weather", 1, 1, false},      // case-insensitive, description and name
		{"TOOL-2", 11, 11, false},     // tool-2, tool-20…29
		{"nothing like it", 0, 0, false},
	} {
		out, err := call(context.Background(), search, fmt.Sprintf(`{"query":%q}`, tc.query))
		if err != nil {
			t.Fatal(err)
		}
		var r result
		if err := json.Unmarshal(out.Content, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Tools) != tc.hits || r.TotalMatches != tc.all || (r.Truncated != nil) != tc.truncated {
			t.Errorf("query %q: %d hits, total %d, truncated %v; want %d, %d, %v (%s)", tc.query, len(r.Tools), r.TotalMatches, r.Truncated, tc.hits, tc.all, tc.truncated, out.Content)
		}
		if tc.truncated && !*r.Truncated {
			t.Errorf("query %q: truncated present but false", tc.query)
		}
		for _, h := range r.Tools {
			if !strings.HasPrefix(h.Name, "x_") || h.InputSchema == nil || h.InputSchema.Properties["text"] == nil {
				t.Errorf("query %q: hit %+v lacks its prefixed name or real schema", tc.query, h)
			}
		}
	}
	// The adapted tools still call through with their real arguments.
	out, err := call(context.Background(), tools[3], `{"text":"lazy"}`)
	if err != nil || string(out.Content) != `"lazy"` {
		t.Fatalf("call: %s %v", out.Content, err)
	}
}

func TestListChanged_RefreshesTheCache(t *testing.T) {
	s := goServer(2, 0)
	c := connectInMemory(t, s, mcp.WithLazy())
	hasTool := func(name string) bool {
		tools, _ := c.Tools(context.Background())
		for _, tool := range tools {
			if tool.Name() == name {
				return true
			}
		}
		return false
	}
	old := toolNamed(t, c, "tool-0")
	addEchoTool(s, "late", "Added after connect.")
	waitFor(t, "the late tool after list_changed", func() bool { return hasTool("late") })
	s.RemoveTools("tool-0")
	waitFor(t, "tool-0 to go after list_changed", func() bool { return !hasTool("tool-0") })
	_, err := call(context.Background(), old, `{"text":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "no longer offers") {
		t.Fatalf("calling a withdrawn tool: err = %v", err)
	}
	// The agent-facing search sees the new tool too.
	out, err := call(context.Background(), toolNamed(t, c, "search_tools"), `{"query":"late"}`)
	if err != nil || !strings.Contains(string(out.Content), `"total_matches":1`) {
		t.Fatalf("search after refresh: %s %v", out.Content, err)
	}
}

func TestToolSources_TwoServersOfferingOneNameFailTheBuild(t *testing.T) {
	a := connectInMemory(t, goServer(2, 0))
	b := connectInMemory(t, goServer(1, 0))
	_, err := helikon.NewAgent("a", mock.Scripted(), helikon.WithToolSources(context.Background(), a, b))
	var dup *helikon.DuplicateNameError
	if !errors.As(err, &dup) || dup.Name != "tool-0" || dup.First != 0 || dup.Second != 1 {
		t.Fatalf("err = %v, want a DuplicateNameError for tool-0", err)
	}
	// Prefixes keep them apart.
	c := connectInMemory(t, goServer(1, 0), mcp.WithToolPrefix("b_"))
	if _, err := helikon.NewAgent("a", mock.Scripted(), helikon.WithToolSources(context.Background(), a, c)); err != nil {
		t.Fatal(err)
	}
}
