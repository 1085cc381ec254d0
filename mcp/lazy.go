package mcp

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
)

// searchCap is how many tools search_tools returns at most.
const searchCap = 20

// searchTool is lazy mode's search_tools: it finds cached tools by name or
// description and returns their real schemas.
type searchTool struct {
	c    *Client
	name string
}

type searchArgs struct {
	Query string `json:"query"`
}

type searchHit struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
}

type searchResult struct {
	Tools        []searchHit `json:"tools"`
	TotalMatches int         `json:"total_matches"`
	Truncated    bool        `json:"truncated,omitempty"`
}

// Name returns the prefixed name, search_tools by default.
func (s *searchTool) Name() string { return s.name }

// Description tells the model what the tool is for.
func (s *searchTool) Description() string {
	return "Search this server's tools by name or description (case-insensitive) and get their full input schemas. Call it before using a tool whose schema you have not seen."
}

// InputSchema is {"query": string}.
func (s *searchTool) InputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"query"},
		Properties: map[string]*jsonschema.Schema{
			"query": {Type: "string", Description: "text to look for in tool names and descriptions"},
		},
	}
}

// Effect is ReadOnly: the search reads the local cache.
func (s *searchTool) Effect() helikon.ToolEffect { return helikon.ReadOnly }

// Call searches the cache as it is now, so tools added by list_changed are
// found.
func (s *searchTool) Call(_ *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	var in searchArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return helikon.ToolOutput{}, helikon.InvalidArgs("arguments must be an object with a string query: " + err.Error())
	}
	q := strings.ToLower(in.Query)
	res := searchResult{Tools: []searchHit{}}
	s.c.mu.RLock()
	for _, t := range s.c.tools {
		rt, ok := t.(*remoteTool)
		if !ok || !(strings.Contains(strings.ToLower(rt.name), q) || strings.Contains(strings.ToLower(rt.description), q)) {
			continue
		}
		res.TotalMatches++
		if len(res.Tools) < searchCap {
			res.Tools = append(res.Tools, searchHit{Name: rt.name, Description: rt.description, InputSchema: rt.schema})
		}
	}
	s.c.mu.RUnlock()
	res.Truncated = res.TotalMatches > searchCap
	b, err := json.Marshal(res)
	if err != nil {
		return helikon.ToolOutput{}, err
	}
	return helikon.ToolOutput{Content: b}, nil
}
