package openai

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/toolargs"
)

// The request body of POST /responses (components/schemas/CreateResponse).
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              []any           `json:"input"`
	Stream             bool            `json:"stream"`
	Tools              []responsesTool `json:"tools,omitempty"`
	ToolChoice         any             `json:"tool_choice,omitempty"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls,omitempty"`
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"top_p,omitempty"`
	MaxOutputTokens    int             `json:"max_output_tokens,omitempty"`
	Text               *responsesText  `json:"text,omitempty"`
	PreviousResponseID string          `json:"previous_response_id,omitempty"`
	Reasoning          *reasoning      `json:"reasoning,omitempty"`
}

type responsesText struct {
	Format json.RawMessage `json:"format"`
}

type reasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type responsesTool struct {
	Type        string             `json:"type"`
	Name        string             `json:"name"`
	Description string             `json:"description,omitempty"`
	Parameters  *jsonschema.Schema `json:"parameters"`
	Strict      bool               `json:"strict"`
}

type inputMessage struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type inputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

type functionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type reasoningItem struct {
	Type             string        `json:"type"`
	ID               string        `json:"id"`
	Summary          []summaryText `json:"summary"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (m *ResponsesModel) responsesRequest(req *helikon.ModelRequest) (*responsesRequest, error) {
	s := req.Settings
	format, err := responseFormat(s.ResponseFormat, responsesFormat)
	if err != nil {
		return nil, err
	}
	out := &responsesRequest{
		Model:              m.id,
		Stream:             true,
		Temperature:        s.Temperature,
		TopP:               s.TopP,
		MaxOutputTokens:    s.MaxOutputTokens,
		PreviousResponseID: s.PreviousResponseID,
	}
	if format != nil {
		out.Text = &responsesText{Format: format}
	}
	if s.ReasoningEffort != "" {
		out.Reasoning = &reasoning{Effort: s.ReasoningEffort, Summary: "auto"}
	}
	if len(req.Tools) > 0 {
		// Chat's choice names the function under "function"; here it is flat.
		choice, err := chatToolChoice(s.ToolChoice)
		if err != nil {
			return nil, err
		}
		if s.ToolChoice.Mode == helikon.ToolChoiceTool {
			choice = map[string]string{"type": "function", "name": s.ToolChoice.Name}
		}
		out.ToolChoice = choice
		out.ParallelToolCalls = s.ParallelToolCalls
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if params == nil {
			params = emptyObject
		}
		out.Tools = append(out.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	out.Input = responsesInput(req.Messages, s.PreviousResponseID != "")
	return out, nil
}

// responsesInput converts the conversation to input items. System items are
// hoisted to the top. With server-managed state (previous_response_id) the
// server already holds everything up to its last answer, so only the items
// after the last assistant message are sent.
func responsesInput(items []helikon.Item, threaded bool) []any {
	out := make([]any, 0, len(items))
	for _, it := range items {
		if it.Role == helikon.RoleSystem {
			out = append(out, inputMessage{Type: "message", Role: "system", Content: it.Text()})
		}
	}
	if threaded {
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].Role == helikon.RoleAssistant {
				items = items[i+1:]
				break
			}
		}
	}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleUser:
			out = append(out, inputMessage{Type: "message", Role: "user", Content: userParts(it.Content)})
		case helikon.RoleAssistant:
			for _, p := range it.Content {
				switch p := p.(type) {
				case helikon.ReasoningPart:
					// Only reasoning the API produced (it has an id) can go back.
					if p.ID != "" {
						r := reasoningItem{Type: "reasoning", ID: p.ID, Summary: []summaryText{}, EncryptedContent: p.Data}
						if p.Text != "" {
							r.Summary = append(r.Summary, summaryText{Type: "summary_text", Text: p.Text})
						}
						out = append(out, r)
					}
				case helikon.TextPart:
					out = append(out, inputMessage{Type: "message", Role: "assistant", Content: p.Text})
				case helikon.ToolUsePart:
					out = append(out, functionCall{Type: "function_call", CallID: p.CallID, Name: p.Name, Arguments: toolargs.String(p.Args)})
				}
			}
		case helikon.RoleTool:
			for _, p := range it.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					out = append(out, functionCallOutput{Type: "function_call_output", CallID: r.CallID, Output: resultText(r)})
				}
			}
		}
	}
	return out
}

func userParts(parts []helikon.ContentPart) []inputPart {
	out := make([]inputPart, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			out = append(out, inputPart{Type: "input_text", Text: p.Text})
		case helikon.ImagePart:
			out = append(out, inputPart{Type: "input_image", ImageURL: imageRef(p), Detail: "auto"})
		}
	}
	return out
}
