package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
	"github.com/paigasus/helikon/schema"
)

// The request body of POST /chat/completions
// (components/schemas/CreateChatCompletionRequest).
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// The reasoning of a tool-calling turn, for servers that require it
	// back ([WithReasoningInHistory]); OpenAI's own API has no such field.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Reasoning        string `json:"reasoning,omitempty"`
}

type chatPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string          `json:"type"`
	Function chatFunctionDef `json:"function"`
}

type chatFunctionDef struct {
	Name        string             `json:"name"`
	Description string             `json:"description,omitempty"`
	Parameters  *jsonschema.Schema `json:"parameters"`
}

// emptyObject is the parameters schema of a tool that takes none.
var emptyObject = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}

func (m *ChatModel) chatRequest(req *helikon.ModelRequest) (*chatRequest, error) {
	s := req.Settings
	format, err := responseFormat(s.ResponseFormat, chatFormat)
	if err != nil {
		return nil, err
	}
	out := &chatRequest{
		Model:               m.id,
		Stream:              true,
		StreamOptions:       &streamOptions{IncludeUsage: true},
		Temperature:         s.Temperature,
		TopP:                s.TopP,
		MaxCompletionTokens: s.MaxOutputTokens,
		ReasoningEffort:     s.ReasoningEffort,
		ResponseFormat:      format,
	}
	// The API rejects tool settings on a request without tools.
	if len(req.Tools) > 0 {
		if out.ToolChoice, err = chatToolChoice(s.ToolChoice); err != nil {
			return nil, err
		}
		out.ParallelToolCalls = s.ParallelToolCalls
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if params == nil {
			params = emptyObject
		}
		out.Tools = append(out.Tools, chatTool{Type: "function",
			Function: chatFunctionDef{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	out.Messages = chatMessages(req.Messages, m.cfg.reasoningField)
	return out, nil
}

func chatToolChoice(tc helikon.ToolChoice) (any, error) {
	switch tc.Mode {
	case "":
		return nil, nil
	case helikon.ToolChoiceAuto, helikon.ToolChoiceNone, helikon.ToolChoiceRequired:
		return string(tc.Mode), nil
	case helikon.ToolChoiceTool:
		if tc.Name == "" {
			return nil, fmt.Errorf("tool choice %q needs a tool name", tc.Mode)
		}
		return map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}, nil
	}
	return nil, fmt.Errorf("unknown tool choice %q", tc.Mode)
}

type formatShape int

const (
	chatFormat      formatShape = iota // {"type":"json_schema","json_schema":{...}}
	responsesFormat                    // {"type":"json_schema","name":...,"schema":...}
)

// responseFormat encodes rf for the API; a strict JSON schema goes through
// [schema.Strict] first, since OpenAI rejects schemas strict mode cannot use.
func responseFormat(rf *helikon.ResponseFormat, shape formatShape) (json.RawMessage, error) {
	if rf == nil || rf.Type == "" {
		return nil, nil
	}
	switch rf.Type {
	case helikon.FormatText, helikon.FormatJSONObject:
		return json.Marshal(map[string]string{"type": string(rf.Type)})
	case helikon.FormatJSONSchema:
	default:
		return nil, fmt.Errorf("unknown response format %q", rf.Type)
	}
	if rf.Schema == nil {
		return nil, fmt.Errorf("response format %q has no schema", rf.Type)
	}
	sch := rf.Schema
	if rf.Strict {
		var err error
		if sch, err = schema.Strict(sch); err != nil {
			return nil, fmt.Errorf("response format schema: %w", err)
		}
	}
	name := rf.Name
	if name == "" {
		name = "output"
	}
	type jsonSchema struct {
		Type   string             `json:"type,omitempty"`
		Name   string             `json:"name"`
		Schema *jsonschema.Schema `json:"schema"`
		Strict bool               `json:"strict"`
	}
	if shape == responsesFormat {
		return json.Marshal(jsonSchema{Type: "json_schema", Name: name, Schema: sch, Strict: rf.Strict})
	}
	return json.Marshal(struct {
		Type       string     `json:"type"`
		JSONSchema jsonSchema `json:"json_schema"`
	}{"json_schema", jsonSchema{Name: name, Schema: sch, Strict: rf.Strict}})
}

// chatMessages converts the conversation. System items, wherever they sit,
// are hoisted to the top in order, where every Chat Completions server
// accepts them; each tool result becomes its own "tool" message. With a
// reasoningField, an assistant turn that called tools carries its
// reasoning text back in that field.
func chatMessages(items []helikon.Item, reasoningField string) []chatMessage {
	out := make([]chatMessage, 0, len(items))
	for _, it := range items {
		if it.Role == helikon.RoleSystem {
			out = append(out, chatMessage{Role: "system", Content: it.Text()})
		}
	}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleUser:
			out = append(out, chatMessage{Role: "user", Content: userContent(it.Content)})
		case helikon.RoleAssistant:
			msg := chatMessage{Role: "assistant"}
			if text := it.Text(); text != "" {
				msg.Content = text
			}
			for _, u := range it.ToolUses() {
				// Compatible servers (vLLM, SGLang) parse the arguments and
				// reject a request whose history holds a truncated call.
				msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: u.CallID, Type: "function",
					Function: chatFunction{Name: u.Name, Arguments: toolargs.String(u.Args)}})
			}
			if msg.ToolCalls != nil {
				setReasoning(&msg, reasoningField, it.Content)
			}
			if msg.Content == nil && msg.ToolCalls == nil {
				msg.Content = ""
			}
			out = append(out, msg)
		case helikon.RoleTool:
			for _, p := range it.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					out = append(out, chatMessage{Role: "tool", ToolCallID: r.CallID, Content: resultText(r)})
				}
			}
		}
	}
	return out
}

// setReasoning puts the text of the turn's reasoning parts in field.
// DeepSeek's thinking mode answers 400 when a tool-calling turn comes back
// without its reasoning_content; OpenAI's API defines no such field, so
// without a field reasoning is dropped, as before.
func setReasoning(msg *chatMessage, field string, parts []helikon.ContentPart) {
	if field == "" {
		return
	}
	var b strings.Builder
	for _, p := range parts {
		if r, ok := p.(helikon.ReasoningPart); ok {
			b.WriteString(r.Text)
		}
	}
	switch field {
	case ReasoningContentField:
		msg.ReasoningContent = b.String()
	case ReasoningField:
		msg.Reasoning = b.String()
	}
}

// userContent is a plain string for text-only messages (what every
// compatible server accepts) and a part array when images are present.
func userContent(parts []helikon.ContentPart) any {
	hasImage := false
	for _, p := range parts {
		if _, ok := p.(helikon.ImagePart); ok {
			hasImage = true
		}
	}
	if !hasImage {
		return helikon.Item{Content: parts}.Text()
	}
	out := make([]chatPart, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			out = append(out, chatPart{Type: "text", Text: p.Text})
		case helikon.ImagePart:
			out = append(out, chatPart{Type: "image_url", ImageURL: &imageURL{URL: imageRef(p)}})
		}
	}
	return out
}

// imageRef is the image's URL, or its bytes as a data URL.
func imageRef(p helikon.ImagePart) string {
	if p.URL != "" {
		return p.URL
	}
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// resultText flattens a tool result to the text the API carries; an error
// result is marked so the model knows the call failed.
func resultText(r helikon.ToolResultPart) string {
	var b strings.Builder
	for _, p := range r.Content {
		if t, ok := p.(helikon.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	if r.IsError && !strings.HasPrefix(b.String(), "error") {
		return "error: " + b.String()
	}
	return b.String()
}
