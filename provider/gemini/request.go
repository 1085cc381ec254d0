package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
)

// ErrStructuredOutputWithTools is the cause of the error for a request
// that asks for structured output while offering tools (or a tool choice
// other than none): Gemini rejects function calling together with a JSON
// response format, so the adapter fails before sending.
var ErrStructuredOutputWithTools = errors.New("gemini: structured output cannot be combined with function calling; drop the tools or the response format")

// The request body of models/{model}:streamGenerateContent (the
// GenerateContentRequest of the v1beta discovery document; Vertex AI's v1
// shape is the same for every field used here).
type generateRequest struct {
	Contents          []content   `json:"contents"`
	SystemInstruction *content    `json:"systemInstruction,omitempty"`
	Tools             []toolSet   `json:"tools,omitempty"`
	ToolConfig        *toolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *genConfig  `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is every part the adapter sends; omitempty leaves each kind with
// only its own fields.
type part struct {
	Text             string        `json:"text,omitempty"`
	InlineData       *blob         `json:"inlineData,omitempty"`
	FileData         *fileData     `json:"fileData,omitempty"`
	FunctionCall     *functionCall `json:"functionCall,omitempty"`
	FunctionResponse *functionResp `json:"functionResponse,omitempty"`
	ThoughtSignature string        `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     []byte `json:"data"` // base64 by encoding/json
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResp struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
	Parts    []respPart     `json:"parts,omitempty"`
}

// respPart is a FunctionResponsePart: media a tool returned.
type respPart struct {
	InlineData *blob     `json:"inlineData,omitempty"`
	FileData   *fileData `json:"fileData,omitempty"`
}

type toolSet struct {
	FunctionDeclarations []functionDecl `json:"functionDeclarations"`
}

type functionDecl struct {
	Name        string             `json:"name"`
	Description string             `json:"description,omitempty"`
	Parameters  *jsonschema.Schema `json:"parametersJsonSchema,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig callingConfig `json:"functionCallingConfig"`
}

type callingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type genConfig struct {
	Temperature        *float64           `json:"temperature,omitempty"`
	TopP               *float64           `json:"topP,omitempty"`
	MaxOutputTokens    int                `json:"maxOutputTokens,omitempty"`
	ResponseMimeType   string             `json:"responseMimeType,omitempty"`
	ResponseJSONSchema *jsonschema.Schema `json:"responseJsonSchema,omitempty"`
	ResponseSchema     map[string]any     `json:"responseSchema,omitempty"`
	ThinkingConfig     *thinkingConfig    `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

func (m *Model) request(req *helikon.ModelRequest) (*generateRequest, error) {
	s := req.Settings
	out := &generateRequest{}
	gc := &genConfig{Temperature: s.Temperature, TopP: s.TopP, MaxOutputTokens: s.MaxOutputTokens}
	if t := m.cfg.thinking; t != nil || s.ReasoningEffort != "" {
		tc := &thinkingConfig{}
		if t != nil {
			*tc = *t
		}
		if s.ReasoningEffort != "" {
			// A level and a budget together are rejected by the API.
			tc.ThinkingLevel, tc.ThinkingBudget = s.ReasoningEffort, nil
		}
		gc.ThinkingConfig = tc
	}
	if len(req.Tools) > 0 {
		decls := make([]functionDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, functionDecl{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
		out.Tools = []toolSet{{FunctionDeclarations: decls}}
		tc, err := toolChoice(s.ToolChoice)
		if err != nil {
			return nil, err
		}
		out.ToolConfig = tc
	}
	if rf := s.ResponseFormat; rf != nil && rf.Type != "" && rf.Type != helikon.FormatText {
		if len(req.Tools) > 0 || (s.ToolChoice.Mode != "" && s.ToolChoice.Mode != helikon.ToolChoiceNone) {
			return nil, ErrStructuredOutputWithTools
		}
		if err := m.structuredOutput(gc, rf); err != nil {
			return nil, err
		}
	}
	if gc.Temperature != nil || gc.TopP != nil || gc.MaxOutputTokens != 0 || gc.ResponseMimeType != "" || gc.ThinkingConfig != nil {
		out.GenerationConfig = gc
	}
	sys, contents, err := convert(req.Messages, m.vertex)
	if err != nil {
		return nil, err
	}
	out.SystemInstruction, out.Contents = sys, contents
	return out, nil
}

func toolChoice(tc helikon.ToolChoice) (*toolConfig, error) {
	switch tc.Mode {
	case "":
		return nil, nil
	case helikon.ToolChoiceAuto:
		return &toolConfig{callingConfig{Mode: "AUTO"}}, nil
	case helikon.ToolChoiceNone:
		return &toolConfig{callingConfig{Mode: "NONE"}}, nil
	case helikon.ToolChoiceRequired:
		return &toolConfig{callingConfig{Mode: "ANY"}}, nil
	case helikon.ToolChoiceTool:
		if tc.Name == "" {
			return nil, fmt.Errorf("tool choice %q needs a tool name", tc.Mode)
		}
		return &toolConfig{callingConfig{Mode: "ANY", AllowedFunctionNames: []string{tc.Name}}}, nil
	}
	return nil, fmt.Errorf("unknown tool choice %q", tc.Mode)
}

// structuredOutput asks for JSON natively: responseJsonSchema takes the
// schema as it is; responseSchema (older models) takes the OpenAPI subset
// [SanitizeSchema] produces.
func (m *Model) structuredOutput(gc *genConfig, rf *helikon.ResponseFormat) error {
	gc.ResponseMimeType = "application/json"
	switch rf.Type {
	case helikon.FormatJSONObject:
		return nil
	case helikon.FormatJSONSchema:
	default:
		return fmt.Errorf("unknown response format %q", rf.Type)
	}
	if rf.Schema == nil {
		return fmt.Errorf("response format %q has no schema", rf.Type)
	}
	if m.openAPISchema() {
		sch, err := SanitizeSchema(rf.Schema)
		if err != nil {
			return fmt.Errorf("response format schema: %w", err)
		}
		gc.ResponseSchema = sch
		return nil
	}
	gc.ResponseJSONSchema = rf.Schema
	return nil
}

// openAPISchema reports whether structured output goes as responseSchema:
// when asked, or by default for the model families that predate
// responseJsonSchema.
func (m *Model) openAPISchema() bool {
	switch m.cfg.schemaFmt {
	case schemaJSON:
		return false
	case schemaOpenAPI:
		return true
	}
	return strings.HasPrefix(m.id, "gemini-1.") || strings.HasPrefix(m.id, "gemini-2.0")
}

// convert builds systemInstruction and the user/model turns. Consecutive
// items of one role become one content, so the function responses of a
// turn travel together, as the API requires.
func convert(items []helikon.Item, vertex bool) (*content, []content, error) {
	var sys *content
	var out []content
	names := map[string]string{} // call id → function name, for results that lack one
	add := func(role string, parts []part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, content{Role: role, Parts: parts})
	}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleSystem:
			if t := it.Text(); t != "" {
				if sys == nil {
					sys = &content{}
				}
				sys.Parts = append(sys.Parts, part{Text: t})
			}
		case helikon.RoleUser:
			parts, err := userParts(it.Content)
			if err != nil {
				return nil, nil, err
			}
			add("user", parts)
		case helikon.RoleAssistant:
			add("model", modelParts(it.Content, names))
		case helikon.RoleTool:
			var parts, extra []part
			for _, p := range it.Content {
				r, ok := p.(helikon.ToolResultPart)
				if !ok {
					continue
				}
				fr, refs, err := functionResponse(r, names, vertex)
				if err != nil {
					return nil, nil, err
				}
				parts = append(parts, part{FunctionResponse: fr})
				extra = append(extra, refs...)
			}
			// Media the Developer API takes only as parts of the turn
			// follow the function responses, which must come first.
			add("user", append(parts, extra...))
		}
	}
	return sys, out, nil
}

func userParts(parts []helikon.ContentPart) ([]part, error) {
	out := make([]part, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			if p.Text != "" {
				out = append(out, part{Text: p.Text})
			}
		case helikon.ImagePart:
			b, f, err := media(p)
			if err != nil {
				return nil, err
			}
			out = append(out, part{InlineData: b, FileData: f})
		}
	}
	return out, nil
}

// media turns an image into inline bytes or a fileData reference (a remote
// URL, a gs:// object or a Files API URI), which the API fetches itself.
func media(p helikon.ImagePart) (*blob, *fileData, error) {
	if p.URL == "" {
		mt := p.MediaType
		if mt == "" {
			return nil, nil, errors.New("inline image without a media type")
		}
		return &blob{MimeType: mt, Data: p.Data}, nil, nil
	}
	mt := p.MediaType
	if mt == "" {
		if u, err := url.Parse(p.URL); err == nil {
			mt = mime.TypeByExtension(strings.ToLower(path.Ext(u.Path)))
		}
		if i := strings.IndexByte(mt, ';'); i >= 0 {
			mt = mt[:i]
		}
	}
	if mt == "" {
		return nil, nil, fmt.Errorf("image %q: the API needs its media type; set ImagePart.MediaType", p.URL)
	}
	return nil, &fileData{MimeType: mt, FileURI: p.URL}, nil
}

// modelParts rebuilds a model turn. Thought signatures come back on the
// part they arrived with: the decoder tagged each signature's
// [helikon.ReasoningPart] with the call (or the text) it belongs to.
// Thought summaries are not sent back; the API does not need them.
func modelParts(parts []helikon.ContentPart, names map[string]string) []part {
	sigs := map[string]string{}
	for _, p := range parts {
		if r, ok := p.(helikon.ReasoningPart); ok && r.Signature != "" && strings.HasPrefix(r.ID, sigPrefix) {
			sigs[strings.TrimPrefix(r.ID, sigPrefix)] += r.Signature
		}
	}
	out := make([]part, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			if p.Text != "" {
				out = append(out, part{Text: p.Text, ThoughtSignature: sigs[sigText]})
			}
		case helikon.ToolUsePart:
			names[p.CallID] = p.Name
			out = append(out, part{FunctionCall: &functionCall{ID: p.CallID, Name: p.Name, Args: toolargs.Object(p.Args)},
				ThoughtSignature: sigs[sigCall+p.CallID]})
		}
	}
	return out
}

// functionResponse carries a tool result: its text under "output" (or
// "error" for a failed call), as the API documents, and its images as
// function-response parts. The text stays a string even when it holds
// JSON, so the model reads exactly what the tool returned. The Developer
// API's function-response parts hold inline bytes only (FunctionResponsePart
// in its v1beta protos; Vertex AI's take fileData too), so there an image
// by reference comes back in refs, for a part of the turn of its own,
// rather than be dropped.
func functionResponse(r helikon.ToolResultPart, names map[string]string, vertex bool) (fr *functionResp, refs []part, err error) {
	name := r.Name
	if name == "" {
		name = names[r.CallID]
	}
	var text strings.Builder
	fr = &functionResp{ID: r.CallID, Name: name}
	for _, p := range r.Content {
		switch p := p.(type) {
		case helikon.TextPart:
			text.WriteString(p.Text)
		case helikon.ImagePart:
			b, f, err := media(p)
			if err != nil {
				return nil, nil, err
			}
			if f != nil && !vertex {
				refs = append(refs, part{FileData: f})
				continue
			}
			fr.Parts = append(fr.Parts, respPart{InlineData: b, FileData: f})
		}
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	fr.Response = map[string]any{key: text.String()}
	return fr, refs, nil
}
