package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
	"github.com/paigasus/helikon/schema"
)

// outputToolName is the tool structured output is synthesised with: the
// model is made to call it, and its input is the answer.
const outputToolName = "structured_output"

// The request body of POST /v1/messages.
type messagesRequest struct {
	Model       string     `json:"model"`
	MaxTokens   int        `json:"max_tokens"`
	System      []block    `json:"system,omitempty"`
	Messages    []message  `json:"messages"`
	Stream      bool       `json:"stream"`
	Tools       []tool     `json:"tools,omitempty"`
	ToolChoice  *toolPick  `json:"tool_choice,omitempty"`
	Temperature *float64   `json:"temperature,omitempty"`
	TopP        *float64   `json:"top_p,omitempty"`
	Thinking    *thinkingC `json:"thinking,omitempty"`
	Output      *outputCfg `json:"output_config,omitempty"`

	outputTool string // set when structured output rides on a forced tool
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is every content block the adapter sends; omitempty leaves each
// type with only its own fields.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"` // base64 by encoding/json
	URL       string `json:"url,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type tool struct {
	Name         string             `json:"name"`
	Description  string             `json:"description,omitempty"`
	InputSchema  *jsonschema.Schema `json:"input_schema"`
	CacheControl *cacheControl      `json:"cache_control,omitempty"`
}

type toolPick struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type outputCfg struct {
	Effort string     `json:"effort,omitempty"`
	Format *outFormat `json:"format,omitempty"`
}

type outFormat struct {
	Type   string             `json:"type"`
	Schema *jsonschema.Schema `json:"schema"`
}

type thinkingC struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

var (
	ephemeral   = &cacheControl{Type: "ephemeral"}
	emptyObject = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
)

func (m *MessagesModel) messagesRequest(req *helikon.ModelRequest) (*messagesRequest, error) {
	s := req.Settings
	out := &messagesRequest{Model: m.id, MaxTokens: m.cfg.maxTokens, Stream: true, Temperature: s.Temperature, TopP: s.TopP}
	if s.MaxOutputTokens > 0 {
		out.MaxTokens = s.MaxOutputTokens
	}
	if b := m.cfg.thinking; b > 0 {
		out.Thinking = &thinkingC{Type: "enabled", BudgetTokens: b}
		if out.MaxTokens <= b {
			out.MaxTokens = b + DefaultMaxTokens
		}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if params == nil {
			params = emptyObject
		}
		out.Tools = append(out.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: params})
	}
	// The API rejects a tool choice on a request without tools.
	if len(req.Tools) > 0 {
		pick, err := toolChoice(s.ToolChoice, s.ParallelToolCalls)
		if err != nil {
			return nil, err
		}
		out.ToolChoice = pick
	}
	if s.ReasoningEffort != "" {
		out.Output = &outputCfg{Effort: s.ReasoningEffort}
	}
	if rf := s.ResponseFormat; rf != nil {
		switch rf.Type {
		case "", helikon.FormatText:
		case helikon.FormatJSONSchema:
			if err := m.structuredOutput(out, rf); err != nil {
				return nil, err
			}
		default:
			// json_object has no Messages equivalent; a schema says what
			// "JSON" means and the API can then guarantee it.
			return nil, fmt.Errorf("response format %q is not supported by the Messages API; use %q with a schema", rf.Type, helikon.FormatJSONSchema)
		}
	}
	out.System, out.Messages = convert(req.Messages)
	m.placeCache(out)
	return out, nil
}

func toolChoice(tc helikon.ToolChoice, parallel *bool) (*toolPick, error) {
	var p *toolPick
	switch tc.Mode {
	case "":
	case helikon.ToolChoiceAuto:
		p = &toolPick{Type: "auto"}
	case helikon.ToolChoiceNone:
		p = &toolPick{Type: "none"}
	case helikon.ToolChoiceRequired:
		p = &toolPick{Type: "any"}
	case helikon.ToolChoiceTool:
		if tc.Name == "" {
			return nil, fmt.Errorf("tool choice %q needs a tool name", tc.Mode)
		}
		p = &toolPick{Type: "tool", Name: tc.Name}
	default:
		return nil, fmt.Errorf("unknown tool choice %q", tc.Mode)
	}
	if parallel != nil && !*parallel {
		if p == nil {
			p = &toolPick{Type: "auto"}
		}
		p.DisableParallelToolUse = p.Type != "none"
	}
	return p, nil
}

// convert hoists system items to the top-level system field and builds the
// user/assistant turns. Consecutive items of one role become one message,
// so the tool results of a turn travel together in one user message.
func convert(items []helikon.Item) ([]block, []message) {
	var system []block
	var msgs []message
	add := func(role string, blocks []block) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, message{Role: role, Content: blocks})
	}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleSystem:
			if t := it.Text(); t != "" {
				system = append(system, block{Type: "text", Text: t})
			}
		case helikon.RoleUser:
			add("user", userBlocks(it.Content))
		case helikon.RoleAssistant:
			add("assistant", assistantBlocks(it.Content))
		case helikon.RoleTool:
			var blocks []block
			for _, p := range it.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					blocks = append(blocks, block{Type: "tool_result", ToolUseID: r.CallID,
						Content: userBlocks(r.Content), IsError: r.IsError})
				}
			}
			add("user", blocks)
		}
	}
	return system, msgs
}

func userBlocks(parts []helikon.ContentPart) []block {
	out := make([]block, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			if p.Text != "" {
				out = append(out, block{Type: "text", Text: p.Text})
			}
		case helikon.ImagePart:
			src := &imageSource{Type: "url", URL: p.URL}
			if p.URL == "" {
				src = &imageSource{Type: "base64", MediaType: p.MediaType, Data: p.Data}
			}
			out = append(out, block{Type: "image", Source: src})
		}
	}
	return out
}

// assistantBlocks keeps thinking blocks first and unchanged (text and
// signature), as the API checks them when a tool-use turn continues.
func assistantBlocks(parts []helikon.ContentPart) []block {
	out := make([]block, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.ReasoningPart:
			switch {
			case p.Signature != "":
				out = append(out, block{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
			case p.Data != "" && p.Text == "":
				out = append(out, block{Type: "redacted_thinking", Data: p.Data})
			}
			// Reasoning without a signature (another provider's) cannot be
			// verified by the API and is dropped.
		case helikon.TextPart:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, block{Type: "text", Text: p.Text})
			}
		case helikon.ToolUsePart:
			// input must be an object, even for arguments the model cut
			// short: the tool result that follows tells it what went wrong.
			out = append(out, block{Type: "tool_use", ID: p.CallID, Name: p.Name, Input: toolargs.Object(p.Args)})
		}
	}
	return out
}

// structuredOutput asks for rf natively (output_config.format, whose
// answer streams as text) or, with [WithToolStructuredOutput], through a
// forced tool call whose input is the answer, for models without native
// structured output.
func (m *MessagesModel) structuredOutput(out *messagesRequest, rf *helikon.ResponseFormat) error {
	if rf.Schema == nil {
		return fmt.Errorf("response format %q has no schema", rf.Type)
	}
	sch := rf.Schema
	if rf.Strict {
		var err error
		if sch, err = schema.Strict(sch); err != nil {
			return fmt.Errorf("response format schema: %w", err)
		}
	}
	if !m.cfg.toolOutput {
		if out.Output == nil {
			out.Output = &outputCfg{}
		}
		out.Output.Format = &outFormat{Type: "json_schema", Schema: sch}
		return nil
	}
	for _, t := range out.Tools {
		if t.Name == outputToolName {
			return fmt.Errorf("tool name %q is reserved for structured output", outputToolName)
		}
	}
	desc := "Respond with the final answer as this tool's input."
	if rf.Name != "" {
		desc = "Respond with the final answer (" + rf.Name + ") as this tool's input."
	}
	out.Tools = append(out.Tools, tool{Name: outputToolName, Description: desc, InputSchema: sch})
	out.outputTool = outputToolName
	if out.Thinking == nil {
		// Thinking does not allow a forced tool; the description asks instead.
		out.ToolChoice = &toolPick{Type: "tool", Name: outputToolName}
	}
	return nil
}

// placeCache sets the cache_control breakpoints the strategy asks for.
func (m *MessagesModel) placeCache(r *messagesRequest) {
	cs := m.cfg.cache
	if cs.System && len(r.System) > 0 {
		r.System[len(r.System)-1].CacheControl = ephemeral
	}
	if cs.Tools && len(r.Tools) > 0 {
		r.Tools[len(r.Tools)-1].CacheControl = ephemeral
	}
	if cs.Tail && len(r.Messages) > 0 {
		last := r.Messages[len(r.Messages)-1].Content
		for i := len(last) - 1; i >= 0; i-- {
			// Thinking blocks cannot carry cache_control.
			if t := last[i].Type; t != "thinking" && t != "redacted_thinking" {
				last[i].CacheControl = ephemeral
				break
			}
		}
	}
}
