package bedrock

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
)

// outputToolName is the hidden tool structured output rides on: the model
// is made to call it, and its input streams as the answer text.
const outputToolName = "structured_output"

var emptyObject = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}

// request builds the ConverseStream body of req and names the hidden
// structured-output tool when the answer rides on one.
func (m *Model) request(req *helikon.ModelRequest) (*converseRequest, string, error) {
	s := req.Settings
	in := &converseRequest{}
	ic := &inferenceConfig{}
	if s.Temperature != nil {
		ic.Temperature = ptr(float32(*s.Temperature))
	}
	if s.TopP != nil {
		ic.TopP = ptr(float32(*s.TopP))
	}
	if n := s.MaxOutputTokens; n > 0 {
		ic.MaxTokens = ptr(int32(n))
	} else if m.s.maxTokens > 0 {
		ic.MaxTokens = ptr(m.s.maxTokens)
	}
	if ic.Temperature != nil || ic.TopP != nil || ic.MaxTokens != nil {
		in.InferenceConfig = ic
	}
	if m.s.thinking > 0 {
		in.AdditionalModelRequestFields = fmt.Appendf(nil, `{"thinking":{"type":"enabled","budget_tokens":%d}}`, m.s.thinking)
	}
	var tools []tool
	for _, t := range req.Tools {
		spec, err := toolSpec(t.Name, t.Description, t.Parameters)
		if err != nil {
			return nil, "", err
		}
		tools = append(tools, spec)
	}
	var choice *toolChoice
	if len(req.Tools) > 0 {
		switch s.ToolChoice.Mode {
		case "", helikon.ToolChoiceAuto:
		case helikon.ToolChoiceNone:
			tools = nil // Converse has no "none"; offering no tools is the same
		case helikon.ToolChoiceRequired:
			choice = &toolChoice{Any: &struct{}{}}
		case helikon.ToolChoiceTool:
			choice = &toolChoice{Tool: &specificTool{Name: s.ToolChoice.Name}}
		default:
			return nil, "", fmt.Errorf("unknown tool choice %q", s.ToolChoice.Mode)
		}
	}
	var outputTool string
	if rf := s.ResponseFormat; rf != nil && rf.Type == helikon.FormatJSONSchema {
		switch {
		case rf.Schema == nil:
			return nil, "", fmt.Errorf("response format %q has no schema", rf.Type)
		case m.s.native:
			raw, err := json.Marshal(rf.Schema)
			if err != nil {
				return nil, "", err
			}
			in.OutputConfig = &outputConfig{TextFormat: outputFormat{Type: "json_schema",
				Structure: outputStructure{JSONSchema: jsonSchemaDefinition{Schema: string(raw), Name: rf.Name}}}}
		case m.family.forcedToolOutput():
			for _, t := range req.Tools {
				if t.Name == outputToolName {
					return nil, "", fmt.Errorf("tool name %q is reserved for structured output", outputToolName)
				}
			}
			spec, err := toolSpec(outputToolName, "Respond with the final answer as this tool's input.", rf.Schema)
			if err != nil {
				return nil, "", err
			}
			tools = append(tools, spec)
			outputTool = outputToolName
			if m.s.thinking == 0 {
				// Thinking does not allow a forced tool; the description asks instead.
				choice = &toolChoice{Tool: &specificTool{Name: outputToolName}}
			}
		default:
			m.warned.Do(func() {
				m.s.logger.Warn("bedrock: this model family gets no structured output; the response format degrades to plain text",
					"model", m.id, "family", string(m.family))
			})
		}
	}
	if len(tools) > 0 {
		in.ToolConfig = &toolConfig{Tools: tools, ToolChoice: choice}
	}
	sys, msgs, err := convert(req.Messages)
	if err != nil {
		return nil, "", err
	}
	in.System, in.Messages = sys, msgs
	m.placeCachePoints(in)
	return in, outputTool, nil
}

// placeCachePoints adds the cache points [WithCacheStrategy] asks for, on
// the families that take them: after the system prompt and after the
// conversation (Anthropic's and Nova's models), after the tools
// (Anthropic's; Nova caches no tools). Each is a block of its own after
// what it caches, as the Converse API documents
// (docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html);
// at most three of the four a request may carry.
func (m *Model) placeCachePoints(in *converseRequest) {
	cs := m.s.cache
	if m.family != FamilyAnthropic && m.family != FamilyNova {
		return
	}
	if cs.System && len(in.System) > 0 {
		in.System = append(in.System, systemBlock{CachePoint: defaultCachePoint})
	}
	if cs.Tools && m.family == FamilyAnthropic && in.ToolConfig != nil {
		in.ToolConfig.Tools = append(in.ToolConfig.Tools, tool{CachePoint: defaultCachePoint})
	}
	if n := len(in.Messages); cs.Tail && n > 0 {
		in.Messages[n-1].Content = append(in.Messages[n-1].Content, contentBlock{CachePoint: defaultCachePoint})
	}
}

func ptr[T any](v T) *T { return &v }

func toolSpec(name, desc string, params *jsonschema.Schema) (tool, error) {
	if params == nil {
		params = emptyObject
	}
	rewritten, err := RewriteToolSchema(params, false)
	if err != nil {
		return tool{}, fmt.Errorf("tool %s: %w", name, err)
	}
	raw, err := json.Marshal(rewritten)
	if err != nil {
		return tool{}, err
	}
	return tool{ToolSpec: &toolSpecification{Name: name, Description: desc, InputSchema: toolInputSchema{JSON: raw}}}, nil
}

// convert hoists system items and builds the user/assistant turns;
// consecutive items of one role become one message, so a turn's tool
// results travel together.
func convert(items []helikon.Item) ([]systemBlock, []message, error) {
	var sys []systemBlock
	var msgs []message
	add := func(role string, blocks []contentBlock) {
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
				sys = append(sys, systemBlock{Text: t})
			}
		case helikon.RoleUser:
			blocks, err := userBlocks(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add(roleUser, blocks)
		case helikon.RoleAssistant:
			blocks, err := assistantBlocks(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add(roleAssistant, blocks)
		case helikon.RoleTool:
			blocks, err := toolResults(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add(roleUser, blocks)
		}
	}
	return sys, msgs, nil
}

func toolResults(parts []helikon.ContentPart) ([]contentBlock, error) {
	var blocks []contentBlock
	for _, p := range parts {
		r, ok := p.(helikon.ToolResultPart)
		if !ok {
			continue
		}
		tr := &toolResultBlock{ToolUseID: toolUseID(r.CallID)}
		for _, c := range r.Content {
			switch c := c.(type) {
			case helikon.TextPart:
				tr.Content = append(tr.Content, toolResultContent{Text: ptr(c.Text)})
			case helikon.ImagePart:
				img, err := image(c)
				if err != nil {
					return nil, err
				}
				tr.Content = append(tr.Content, toolResultContent{Image: img})
			}
		}
		if r.IsError {
			tr.Status = "error"
		}
		blocks = append(blocks, contentBlock{ToolResult: tr})
	}
	return blocks, nil
}

func userBlocks(parts []helikon.ContentPart) ([]contentBlock, error) {
	var out []contentBlock
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			if p.Text != "" {
				out = append(out, contentBlock{Text: ptr(p.Text)})
			}
		case helikon.ImagePart:
			img, err := image(p)
			if err != nil {
				return nil, err
			}
			out = append(out, contentBlock{Image: img})
		}
	}
	return out, nil
}

// image sends inline bytes, or an s3:// object by location; Converse takes
// no other URL.
func image(p helikon.ImagePart) (*imageBlock, error) {
	var format string
	mt := p.MediaType
	if mt == "" && strings.Contains(p.URL, ".") {
		mt = "image/" + strings.ToLower(p.URL[strings.LastIndexByte(p.URL, '.')+1:])
	}
	switch f := strings.TrimPrefix(mt, "image/"); f {
	case "png", "jpeg", "gif", "webp":
		format = f
	case "jpg":
		format = "jpeg"
	default:
		return nil, fmt.Errorf("image media type %q is not one Converse takes (png, jpeg, gif, webp)", mt)
	}
	switch {
	case p.URL == "" && len(p.Data) == 0:
		return nil, fmt.Errorf("image of type %q has neither data nor an s3:// location", mt)
	case p.URL == "":
		return &imageBlock{Format: format, Source: imageSource{Bytes: p.Data}}, nil
	case strings.HasPrefix(p.URL, "s3://"):
		return &imageBlock{Format: format, Source: imageSource{S3Location: &s3Location{URI: p.URL}}}, nil
	}
	return nil, fmt.Errorf("image %q: Converse takes inline bytes or an s3:// location, not a URL", p.URL)
}

// assistantBlocks keeps reasoning first with its signature, as Anthropic
// models on Bedrock check it when a tool-use turn continues.
func assistantBlocks(parts []helikon.ContentPart) ([]contentBlock, error) {
	var out []contentBlock
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.ReasoningPart:
			switch {
			case p.Signature != "" && p.Data == "":
				out = append(out, contentBlock{ReasoningContent: &reasoningContent{ReasoningText: &reasoningText{Text: p.Text, Signature: p.Signature}}})
			case p.Data != "" && p.Text == "":
				// An empty block has nothing to send back, and as an
				// empty union it would be refused.
				if raw, ok := decodeRedacted(p.Data); ok && len(raw) > 0 {
					out = append(out, contentBlock{ReasoningContent: &reasoningContent{RedactedContent: raw}})
				}
			}
		case helikon.TextPart:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, contentBlock{Text: ptr(p.Text)})
			}
		case helikon.ToolUsePart:
			// Object's result is always a JSON object, sent as it is.
			out = append(out, contentBlock{ToolUse: &toolUseBlock{ToolUseID: toolUseID(p.CallID), Name: p.Name, Input: toolargs.Object(p.Args)}})
		}
	}
	return out, nil
}

// maxToolUseID is the longest toolUseId Converse takes.
const maxToolUseID = 64

// toolUseID is the id a call and its result travel under: the call's own
// when it fits Converse's toolUseId (the service model's pattern
// [a-zA-Z0-9_.:-]+, 1 to 64 characters), as every id Bedrock hands out
// does, so a conversation held on Bedrock goes back unchanged. An id
// another provider made that does not fit (empty, too long, with '/', '#'
// or a space) would have the whole
// request refused with a ValidationException on every later turn of the
// session; it goes as "hk_" and 40 hex digits of its SHA-256 instead. The
// mapping is a function of the id alone, so a call and its result, sent
// in different turns or by different processes, still pair up, and two
// different ids stay apart.
func toolUseID(id string) string {
	if len(id) > 0 && len(id) <= maxToolUseID && strings.IndexFunc(id, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':')
	}) < 0 {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "hk_" + hex.EncodeToString(sum[:20])
}

// Redacted reasoning is bytes on Bedrock; helikon keeps it as text.
const redactedPrefix = "bedrock-redacted:"

func decodeRedacted(s string) ([]byte, bool) {
	if !strings.HasPrefix(s, redactedPrefix) {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, redactedPrefix))
	return b, err == nil
}
