package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
	"github.com/paigasus/helikon/provider/providertest"
)

// The adapter writes the ConverseStream body itself; the SDK's
// bedrockruntime client, a test dependency only (it is not linked into a
// program), is the reference it is held to: each request below is also
// built as the SDK's ConverseStreamInput, the way the adapter did when it
// sent requests through the SDK, serialised by the SDK's client, and the
// two bodies must be the same JSON, sent to the same URL (the model id
// escaped alike).

// sdkInput is the request as the SDK's input types.
func sdkInput(m *Model, req *helikon.ModelRequest) (*bedrockruntime.ConverseStreamInput, error) {
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
		tools = append(tools, sdkToolSpec(t.Name, t.Description, t.Parameters))
	}
	var choice types.ToolChoice
	if len(req.Tools) > 0 {
		switch s.ToolChoice.Mode {
		case helikon.ToolChoiceNone:
			tools = nil
		case helikon.ToolChoiceRequired:
			choice = &types.ToolChoiceMemberAny{}
		case helikon.ToolChoiceTool:
			choice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(s.ToolChoice.Name)}}
		}
	}
	if rf := s.ResponseFormat; rf != nil && rf.Type == helikon.FormatJSONSchema {
		switch {
		case m.s.native:
			raw, _ := json.Marshal(rf.Schema)
			def := types.JsonSchemaDefinition{Schema: aws.String(string(raw))}
			if rf.Name != "" {
				def.Name = aws.String(rf.Name)
			}
			in.OutputConfig = &types.OutputConfig{TextFormat: &types.OutputFormat{Type: types.OutputFormatTypeJsonSchema,
				Structure: &types.OutputFormatStructureMemberJsonSchema{Value: def}}}
		case m.family.forcedToolOutput():
			tools = append(tools, sdkToolSpec(outputToolName, "Respond with the final answer as this tool's input.", rf.Schema))
			if m.s.thinking == 0 {
				choice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(outputToolName)}}
			}
		}
	}
	if len(tools) > 0 {
		in.ToolConfig = &types.ToolConfiguration{Tools: tools, ToolChoice: choice}
	}
	for _, it := range req.Messages {
		var role types.ConversationRole
		var blocks []types.ContentBlock
		switch it.Role {
		case helikon.RoleSystem:
			in.System = append(in.System, &types.SystemContentBlockMemberText{Value: it.Text()})
			continue
		case helikon.RoleUser, helikon.RoleTool:
			role = types.ConversationRoleUser
		case helikon.RoleAssistant:
			role = types.ConversationRoleAssistant
		}
		for _, p := range it.Content {
			blocks = append(blocks, sdkBlock(p)...)
		}
		if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == role {
			in.Messages[n-1].Content = append(in.Messages[n-1].Content, blocks...)
		} else {
			in.Messages = append(in.Messages, types.Message{Role: role, Content: blocks})
		}
	}
	if cs := m.s.cache; m.family == FamilyAnthropic || m.family == FamilyNova {
		cp := types.CachePointBlock{Type: types.CachePointTypeDefault}
		if cs.System && len(in.System) > 0 {
			in.System = append(in.System, &types.SystemContentBlockMemberCachePoint{Value: cp})
		}
		if cs.Tools && m.family == FamilyAnthropic && in.ToolConfig != nil {
			in.ToolConfig.Tools = append(in.ToolConfig.Tools, &types.ToolMemberCachePoint{Value: cp})
		}
		if n := len(in.Messages); cs.Tail && n > 0 {
			in.Messages[n-1].Content = append(in.Messages[n-1].Content, &types.ContentBlockMemberCachePoint{Value: cp})
		}
	}
	return in, nil
}

func sdkToolSpec(name, desc string, params *jsonschema.Schema) types.Tool {
	if params == nil {
		params = emptyObject
	}
	rewritten, _ := RewriteToolSchema(params, false)
	raw, _ := json.Marshal(rewritten)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	spec := types.ToolSpecification{Name: aws.String(name), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(v)}}
	if desc != "" {
		spec.Description = aws.String(desc)
	}
	return &types.ToolMemberToolSpec{Value: spec}
}

// sdkBlock is one content part as the SDK's content blocks (the requests
// below use only parts that become one block, in the roles they have).
func sdkBlock(p helikon.ContentPart) []types.ContentBlock {
	switch p := p.(type) {
	case helikon.TextPart:
		return []types.ContentBlock{&types.ContentBlockMemberText{Value: p.Text}}
	case helikon.ImagePart:
		return []types.ContentBlock{&types.ContentBlockMemberImage{Value: sdkImage(p)}}
	case helikon.ReasoningPart:
		if p.Signature != "" {
			return []types.ContentBlock{&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
				Value: types.ReasoningTextBlock{Text: aws.String(p.Text), Signature: aws.String(p.Signature)}}}}
		}
		raw, _ := decodeRedacted(p.Data)
		return []types.ContentBlock{&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: raw}}}
	case helikon.ToolUsePart:
		var args map[string]any
		_ = json.Unmarshal(toolargs.Object(p.Args), &args)
		return []types.ContentBlock{&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(p.CallID),
			Name: aws.String(p.Name), Input: document.NewLazyDocument(args)}}}
	case helikon.ToolResultPart:
		var content []types.ToolResultContentBlock
		for _, c := range p.Content {
			switch c := c.(type) {
			case helikon.TextPart:
				content = append(content, &types.ToolResultContentBlockMemberText{Value: c.Text})
			case helikon.ImagePart:
				content = append(content, &types.ToolResultContentBlockMemberImage{Value: sdkImage(c)})
			}
		}
		tr := types.ToolResultBlock{ToolUseId: aws.String(p.CallID), Content: content}
		if p.IsError {
			tr.Status = types.ToolResultStatusError
		}
		return []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: tr}}
	}
	return nil
}

func sdkImage(p helikon.ImagePart) types.ImageBlock {
	format := types.ImageFormat(strings.TrimPrefix(p.MediaType, "image/"))
	if p.URL != "" {
		return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberS3Location{Value: types.S3Location{Uri: aws.String(p.URL)}}}
	}
	return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberBytes{Value: p.Data}}
}

// requestCatcher is an HTTP client that keeps the request's URL and body
// and fails the call.
type requestCatcher struct {
	url  *string
	body *[]byte
}

var errCaught = errors.New("caught")

func (c requestCatcher) Do(r *http.Request) (*http.Response, error) {
	*c.url = r.URL.String()
	*c.body, _ = io.ReadAll(r.Body)
	return nil, errCaught
}

// sdkRequest is the URL and body the SDK's client sends for in.
func sdkRequest(t *testing.T, in *bedrockruntime.ConverseStreamInput) (string, []byte) {
	t.Helper()
	var url string
	var body []byte
	client := bedrockruntime.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient: requestCatcher{&url, &body}, Retryer: func() aws.Retryer { return aws.NopRetryer{} }})
	if _, err := client.ConverseStream(t.Context(), in); !errors.Is(err, errCaught) {
		t.Fatalf("SDK: %v", err)
	}
	return url, body
}

// sameJSON reports whether a and b are the same JSON value, numbers
// compared as written.
func sameJSON(a, b []byte) (bool, error) {
	var va, vb any
	for _, x := range []struct {
		data []byte
		v    *any
	}{{a, &va}, {b, &vb}} {
		dec := json.NewDecoder(bytes.NewReader(x.data))
		dec.UseNumber()
		if err := dec.Decode(x.v); err != nil {
			return false, fmt.Errorf("%s: %w", x.data, err)
		}
	}
	return reflect.DeepEqual(va, vb), nil
}

func TestRequest_BodyIsTheJSONTheSDKSerialises(t *testing.T) {
	temp, topP := 0.2, 0.9
	png := []byte("\x89PNG\r\n\x1a\n")
	tools := []helikon.ToolDef{providertest.WeatherTool, providertest.StockTool,
		{Name: "t", Description: "a tool with meta keywords", Parameters: &jsonschema.Schema{Schema: "https://json-schema.org/draft/2020-12/schema", Type: "object",
			Properties: map[string]*jsonschema.Schema{"u": {Type: "string", Format: "uri"}, "n": {Type: "integer", Minimum: ptr(1.0)}}}}}
	history := []helikon.Item{
		helikon.SystemItem("You are terse."),
		helikon.SystemItem("Answer in English."),
		{Role: helikon.RoleUser, Content: []helikon.ContentPart{helikon.TextPart{Text: "Compare these, \"quoted\" <html> & ünïcode 😀."},
			helikon.ImagePart{Data: png, MediaType: "image/png"}, helikon.ImagePart{URL: "s3://bucket/key/photo.jpeg", MediaType: "image/jpeg"}}},
		{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ReasoningPart{Text: "Two tools.", Signature: "EqQBCkYIBxgCKkA"},
			helikon.ReasoningPart{Data: "bedrock-redacted:cmVkYWN0ZWQ="},
			helikon.TextPart{Text: "Checking."},
			helikon.ToolUsePart{CallID: "tooluse_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Edinburgh","days":[1,2.5,true,null],"nested":{"a":{}}}`)},
			helikon.ToolUsePart{CallID: "tooluse_2", Name: "get_stock_price", Args: json.RawMessage(`not json`)}}},
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: "tooluse_1", Content: []helikon.ContentPart{helikon.TextPart{Text: "12C"}, helikon.ImagePart{Data: png, MediaType: "image/png"}}}}},
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: "tooluse_2", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "market closed"}}}}},
		{Role: helikon.RoleUser, Content: []helikon.ContentPart{helikon.TextPart{Text: "and now?"}}},
	}
	structured := helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema}}
	for name, tt := range map[string]struct {
		id   string
		opts []Option
		req  *helikon.ModelRequest
	}{
		"text with settings": {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil, &helikon.ModelRequest{Messages: history[:3],
			Settings: helikon.ModelSettings{Temperature: &temp, TopP: &topP, MaxOutputTokens: 100}}},
		"default max tokens":              {"us.amazon.nova-pro-v1:0", []Option{WithMaxTokens(2048)}, &helikon.ModelRequest{Messages: history[2:3]}},
		"history with tools and thinking": {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", []Option{WithThinking(1024)}, &helikon.ModelRequest{Messages: history, Tools: tools}},
		"tool choice required": {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil, &helikon.ModelRequest{Messages: history[2:3], Tools: tools,
			Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}}},
		"tool choice named": {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil, &helikon.ModelRequest{Messages: history[2:3], Tools: tools,
			Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceTool, Name: "get_weather"}}}},
		"tool choice none": {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil, &helikon.ModelRequest{Messages: history[2:3], Tools: tools,
			Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceNone}}}},
		"structured output by forced tool":        {"mistral.mistral-large-2407-v1:0", nil, &helikon.ModelRequest{Messages: history[2:3], Tools: tools, Settings: structured}},
		"structured output by tool with thinking": {"anthropic.claude-3-7-sonnet-20250219-v1:0", []Option{WithThinking(2048)}, &helikon.ModelRequest{Messages: history[2:3], Settings: structured}},
		"structured output native":                {"global.anthropic.claude-opus-4-5-20251101-v1:0", nil, &helikon.ModelRequest{Messages: history[2:3], Settings: structured}},
		"cache points on Claude":                  {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", []Option{WithCacheStrategy(CacheAll)}, &helikon.ModelRequest{Messages: history, Tools: tools}},
		"cache points on Nova":                    {"us.amazon.nova-pro-v1:0", []Option{WithCacheStrategy(CacheAll)}, &helikon.ModelRequest{Messages: history[:3], Tools: tools}},
		"no cache points on Llama":                {"us.meta.llama3-3-70b-instruct-v1:0", []Option{WithCacheStrategy(CacheAll)}, &helikon.ModelRequest{Messages: history[:3]}},
		"inference profile ARN":                   {"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3 d4~_.", nil, &helikon.ModelRequest{Messages: history[2:3]}},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := New(aws.Config{Region: "us-east-1"}, tt.id, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			in, _, err := m.request(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			sdkIn, err := sdkInput(m, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			url, theirs := sdkRequest(t, sdkIn)
			if same, err := sameJSON(ours, theirs); err != nil || !same {
				t.Errorf("bodies differ (%v):\n adapter %s\n sdk     %s", err, ours, theirs)
			}
			if url != m.url {
				t.Errorf("url %s, the SDK's %s", m.url, url)
			}
		})
	}
}
