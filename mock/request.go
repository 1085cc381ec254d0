package mock

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
)

// Request is a recorded [helikon.ModelRequest] in the script file's form:
// the leading system messages as Instructions, the rest of the history as
// Messages, the tool definitions with their schemas as JSON, and the
// settings by name. A recording compares a replayed run's requests with
// these to say what drifted.
type Request struct {
	Instructions []string        `json:"instructions,omitempty"`
	Messages     []helikon.Item  `json:"messages"`
	Tools        []ToolSpec      `json:"tools,omitempty"`
	Settings     json.RawMessage `json:"settings,omitempty"`
}

// ToolSpec is a recorded tool definition.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// settings is the JSON form of [helikon.ModelSettings]: only what is set.
type settings struct {
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"top_p,omitempty"`
	MaxOutputTokens    int             `json:"max_output_tokens,omitempty"`
	ToolChoice         string          `json:"tool_choice,omitempty"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls,omitempty"`
	ResponseFormat     *responseFormat `json:"response_format,omitempty"`
	PreviousResponseID string          `json:"previous_response_id,omitempty"`
	ReasoningEffort    string          `json:"reasoning_effort,omitempty"`
}

type responseFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// RequestOf returns req in its recorded form. Messages and tools are
// copied, so the caller may rewrite the result (to redact it) without
// touching req.
func RequestOf(req *helikon.ModelRequest) (*Request, error) { return new(RequestEncoder).Encode(req) }

// RequestEncoder is [RequestOf] that keeps each tool schema's JSON, so a
// run's every call does not encode the same schemas again (they were most
// of a recorded call's cost). A schema changed in place after its first
// use keeps its first JSON. The zero value is ready; it is safe for
// concurrent use.
type RequestEncoder struct {
	mu      sync.Mutex
	schemas map[*jsonschema.Schema]json.RawMessage
}

// maxCachedSchemas bounds a RequestEncoder's cache; past it the cache
// starts again.
const maxCachedSchemas = 1024

// schema returns s's JSON.
func (e *RequestEncoder) schema(s *jsonschema.Schema) (json.RawMessage, error) {
	e.mu.Lock()
	b, ok := e.schemas[s]
	e.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.schemas == nil || len(e.schemas) >= maxCachedSchemas {
		e.schemas = map[*jsonschema.Schema]json.RawMessage{}
	}
	e.schemas[s] = b
	e.mu.Unlock()
	return b, nil
}

// Encode returns req in its recorded form.
func (e *RequestEncoder) Encode(req *helikon.ModelRequest) (*Request, error) {
	out := &Request{}
	msgs := req.Messages
	for len(msgs) > 0 && msgs[0].Role == helikon.RoleSystem {
		out.Instructions = append(out.Instructions, msgs[0].Text())
		msgs = msgs[1:]
	}
	out.Messages = make([]helikon.Item, len(msgs))
	for i, m := range msgs {
		m.Content = append([]helikon.ContentPart(nil), m.Content...)
		out.Messages[i] = m
	}
	for _, t := range req.Tools {
		spec := ToolSpec{Name: t.Name, Description: t.Description}
		if t.Parameters != nil {
			b, err := e.schema(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("mock: tool %s schema: %w", t.Name, err)
			}
			spec.Parameters = b
		}
		out.Tools = append(out.Tools, spec)
	}
	s := req.Settings
	w := settings{Temperature: s.Temperature, TopP: s.TopP, MaxOutputTokens: s.MaxOutputTokens,
		ParallelToolCalls: s.ParallelToolCalls, PreviousResponseID: s.PreviousResponseID, ReasoningEffort: s.ReasoningEffort}
	if s.ToolChoice.Mode != "" {
		w.ToolChoice = strings.TrimSuffix(string(s.ToolChoice.Mode)+":"+s.ToolChoice.Name, ":")
	}
	if rf := s.ResponseFormat; rf != nil {
		w.ResponseFormat = &responseFormat{Type: string(rf.Type), Name: rf.Name, Strict: rf.Strict}
		if rf.Schema != nil {
			b, err := json.Marshal(rf.Schema)
			if err != nil {
				return nil, fmt.Errorf("mock: response format schema: %w", err)
			}
			w.ResponseFormat.Schema = b
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("mock: settings: %w", err)
	}
	if string(b) != "{}" {
		out.Settings = b
	}
	return out, nil
}
