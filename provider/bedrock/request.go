package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
)

// outputToolName is the hidden tool structured output rides on: the model
// is made to call it, and its input streams as the answer text.
const outputToolName = "structured_output"

var emptyObject = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}

func (m *Model) request(req *helikon.ModelRequest) (*bedrockruntime.ConverseStreamInput, string, error) {
	s := req.Settings
	in := &bedrockruntime.ConverseStreamInput{ModelId: aws.String(m.id)}
	ic := &types.InferenceConfiguration{}
	if s.Temperature != nil {
		ic.Temperature = aws.Float32(float32(*s.Temperature))
	}
	if s.TopP != nil {
		ic.TopP = aws.Float32(float32(*s.TopP))
	}
	if n := s.MaxOutputTokens; n > 0 {
		ic.MaxTokens = aws.Int32(int32(n))
	} else if m.s.maxTokens > 0 {
		ic.MaxTokens = aws.Int32(m.s.maxTokens)
	}
	if ic.Temperature != nil || ic.TopP != nil || ic.MaxTokens != nil {
		in.InferenceConfig = ic
	}
	if m.s.thinking > 0 {
		in.AdditionalModelRequestFields = document.NewLazyDocument(map[string]any{
			"thinking": map[string]any{"type": "enabled", "budget_tokens": m.s.thinking}})
	}
	var tools []types.Tool
	for _, t := range req.Tools {
		spec, err := toolSpec(t.Name, t.Description, t.Parameters)
		if err != nil {
			return nil, "", err
		}
		tools = append(tools, spec)
	}
	var choice types.ToolChoice
	if len(req.Tools) > 0 {
		switch s.ToolChoice.Mode {
		case "", helikon.ToolChoiceAuto:
		case helikon.ToolChoiceNone:
			tools = nil // Converse has no "none"; offering no tools is the same
		case helikon.ToolChoiceRequired:
			choice = &types.ToolChoiceMemberAny{}
		case helikon.ToolChoiceTool:
			choice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(s.ToolChoice.Name)}}
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
			def := types.JsonSchemaDefinition{Schema: aws.String(string(raw))}
			if rf.Name != "" {
				def.Name = aws.String(rf.Name)
			}
			in.OutputConfig = &types.OutputConfig{TextFormat: &types.OutputFormat{Type: types.OutputFormatTypeJsonSchema,
				Structure: &types.OutputFormatStructureMemberJsonSchema{Value: def}}}
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
				choice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(outputToolName)}}
			}
		default:
			m.warned.Do(func() {
				m.s.logger.Warn("bedrock: this model family gets no structured output; the response format degrades to plain text",
					"model", m.id, "family", string(m.family))
			})
		}
	}
	if len(tools) > 0 {
		in.ToolConfig = &types.ToolConfiguration{Tools: tools, ToolChoice: choice}
	}
	sys, msgs, err := convert(req.Messages)
	if err != nil {
		return nil, "", err
	}
	in.System, in.Messages = sys, msgs
	return in, outputTool, nil
}

func toolSpec(name, desc string, params *jsonschema.Schema) (types.Tool, error) {
	if params == nil {
		params = emptyObject
	}
	rewritten, err := RewriteToolSchema(params, false)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	raw, err := json.Marshal(rewritten)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	spec := types.ToolSpecification{Name: aws.String(name), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(v)}}
	if desc != "" {
		spec.Description = aws.String(desc)
	}
	return &types.ToolMemberToolSpec{Value: spec}, nil
}

// convert hoists system items and builds the user/assistant turns;
// consecutive items of one role become one message, so a turn's tool
// results travel together.
func convert(items []helikon.Item) ([]types.SystemContentBlock, []types.Message, error) {
	var sys []types.SystemContentBlock
	var msgs []types.Message
	add := func(role types.ConversationRole, blocks []types.ContentBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, types.Message{Role: role, Content: blocks})
	}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleSystem:
			if t := it.Text(); t != "" {
				sys = append(sys, &types.SystemContentBlockMemberText{Value: t})
			}
		case helikon.RoleUser:
			blocks, err := userBlocks(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add(types.ConversationRoleUser, blocks)
		case helikon.RoleAssistant:
			blocks, err := assistantBlocks(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add(types.ConversationRoleAssistant, blocks)
		case helikon.RoleTool:
			var blocks []types.ContentBlock
			for _, p := range it.Content {
				r, ok := p.(helikon.ToolResultPart)
				if !ok {
					continue
				}
				var content []types.ToolResultContentBlock
				for _, c := range r.Content {
					switch c := c.(type) {
					case helikon.TextPart:
						content = append(content, &types.ToolResultContentBlockMemberText{Value: c.Text})
					case helikon.ImagePart:
						img, err := image(c)
						if err != nil {
							return nil, nil, err
						}
						content = append(content, &types.ToolResultContentBlockMemberImage{Value: img})
					}
				}
				tr := types.ToolResultBlock{ToolUseId: aws.String(r.CallID), Content: content}
				if r.IsError {
					tr.Status = types.ToolResultStatusError
				}
				blocks = append(blocks, &types.ContentBlockMemberToolResult{Value: tr})
			}
			add(types.ConversationRoleUser, blocks)
		}
	}
	return sys, msgs, nil
}

func userBlocks(parts []helikon.ContentPart) ([]types.ContentBlock, error) {
	var out []types.ContentBlock
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			if p.Text != "" {
				out = append(out, &types.ContentBlockMemberText{Value: p.Text})
			}
		case helikon.ImagePart:
			img, err := image(p)
			if err != nil {
				return nil, err
			}
			out = append(out, &types.ContentBlockMemberImage{Value: img})
		}
	}
	return out, nil
}

// image sends inline bytes, or an s3:// object by location; Converse takes
// no other URL.
func image(p helikon.ImagePart) (types.ImageBlock, error) {
	var format types.ImageFormat
	mt := p.MediaType
	if mt == "" && strings.Contains(p.URL, ".") {
		mt = "image/" + strings.ToLower(p.URL[strings.LastIndexByte(p.URL, '.')+1:])
	}
	switch strings.TrimPrefix(mt, "image/") {
	case "png":
		format = types.ImageFormatPng
	case "jpeg", "jpg":
		format = types.ImageFormatJpeg
	case "gif":
		format = types.ImageFormatGif
	case "webp":
		format = types.ImageFormatWebp
	default:
		return types.ImageBlock{}, fmt.Errorf("image media type %q is not one Converse takes (png, jpeg, gif, webp)", mt)
	}
	switch {
	case p.URL == "":
		return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberBytes{Value: p.Data}}, nil
	case strings.HasPrefix(p.URL, "s3://"):
		return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberS3Location{Value: types.S3Location{Uri: aws.String(p.URL)}}}, nil
	}
	return types.ImageBlock{}, fmt.Errorf("image %q: Converse takes inline bytes or an s3:// location, not a URL", p.URL)
}

// assistantBlocks keeps reasoning first with its signature, as Anthropic
// models on Bedrock check it when a tool-use turn continues.
func assistantBlocks(parts []helikon.ContentPart) ([]types.ContentBlock, error) {
	var out []types.ContentBlock
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.ReasoningPart:
			switch {
			case p.Signature != "" && p.Data == "":
				out = append(out, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
					Value: types.ReasoningTextBlock{Text: aws.String(p.Text), Signature: aws.String(p.Signature)}}})
			case p.Data != "" && p.Text == "":
				if raw, ok := decodeRedacted(p.Data); ok {
					out = append(out, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: raw}})
				}
			}
		case helikon.TextPart:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, &types.ContentBlockMemberText{Value: p.Text})
			}
		case helikon.ToolUsePart:
			var args map[string]any
			if err := json.Unmarshal(toolargs.Object(p.Args), &args); err != nil {
				return nil, err
			}
			out = append(out, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(p.CallID),
				Name: aws.String(p.Name), Input: document.NewLazyDocument(args)}})
		}
	}
	return out, nil
}

// Redacted reasoning is bytes on Bedrock; helikon keeps it as text.
const redactedPrefix = "bedrock-redacted:"

func encodeRedacted(b []byte) string { return redactedPrefix + base64.StdEncoding.EncodeToString(b) }

func decodeRedacted(s string) ([]byte, bool) {
	if !strings.HasPrefix(s, redactedPrefix) {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, redactedPrefix))
	return b, err == nil
}
