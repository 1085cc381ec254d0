package helikon

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paigasus/helikon/internal/storedargs"
	"github.com/paigasus/helikon/internal/tagged"
)

// Role says who authored an [Item].
type Role string

// The roles of a conversation; RoleTool items carry tool results.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Item is one message of a conversation: the carrier every model, session and
// event shares. An assistant Item may hold text, reasoning and tool uses
// together; a tool Item holds one [ToolResultPart].
type Item struct {
	Role    Role          `json:"role"`
	Content []ContentPart `json:"content"`
	// Agent names the agent that produced an assistant message, so a
	// transcript that crossed a handoff says who said what.
	Agent string `json:"agent,omitempty"`
}

// UserText returns the input of a run made of one user message.
func UserText(text string) []Item {
	return []Item{{Role: RoleUser, Content: []ContentPart{TextPart{Text: text}}}}
}

// SystemItem returns a system message carrying text.
func SystemItem(text string) Item {
	return Item{Role: RoleSystem, Content: []ContentPart{TextPart{Text: text}}}
}

// Text returns the concatenated text parts of the item.
func (it Item) Text() string {
	switch len(it.Content) {
	case 0:
		return ""
	case 1:
		if t, ok := it.Content[0].(TextPart); ok {
			return t.Text
		}
	}
	var b strings.Builder
	for _, p := range it.Content {
		if t, ok := p.(TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolUses returns the tool calls the item requests, in order.
func (it Item) ToolUses() []ToolUsePart {
	var out []ToolUsePart
	for _, p := range it.Content {
		if u, ok := p.(ToolUsePart); ok {
			out = append(out, u)
		}
	}
	return out
}

// UnmarshalJSON decodes the item, resolving each content part by its "type".
func (it *Item) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    Role      `json:"role"`
		Content wireParts `json:"content"`
		Agent   string    `json:"agent"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	parts, err := raw.Content.parts()
	if err != nil {
		return err
	}
	*it = Item{Role: raw.Role, Content: parts, Agent: raw.Agent}
	return nil
}

// ContentPart is one piece of an [Item]: [TextPart], [ImagePart],
// [ReasoningPart], [ToolUsePart] or [ToolResultPart]. New part types may be
// added; consumers should ignore parts they do not know.
type ContentPart interface {
	isContentPart()
}

// TextPart is plain text.
type TextPart struct {
	Text string `json:"text"`
}

// ImagePart is an image, given by URL or by inline bytes with a media type.
type ImagePart struct {
	URL       string `json:"url,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
}

// ReasoningPart is model reasoning. Signature and Data carry the provider's
// opaque proofs (Anthropic thinking signatures, redacted thinking, OpenAI
// encrypted reasoning) that must be sent back unchanged on the next turn.
type ReasoningPart struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`
}

// ToolUsePart is a tool call requested by the model.
type ToolUsePart struct {
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
}

// ToolResultPart is the result of the tool call CallID, usually one
// [TextPart] holding the tool's JSON output.
type ToolResultPart struct {
	CallID  string        `json:"call_id"`
	Name    string        `json:"name,omitempty"`
	Content []ContentPart `json:"content"`
	IsError bool          `json:"is_error,omitempty"`
}

func (TextPart) isContentPart()       {}
func (ImagePart) isContentPart()      {}
func (ReasoningPart) isContentPart()  {}
func (ToolUsePart) isContentPart()    {}
func (ToolResultPart) isContentPart() {}

// MarshalJSON encodes the part with "type": "text".
func (p TextPart) MarshalJSON() ([]byte, error) {
	type a TextPart
	return tagged.Marshal("text", a(p))
}

// MarshalJSON encodes the part with "type": "image".
func (p ImagePart) MarshalJSON() ([]byte, error) {
	type a ImagePart
	return tagged.Marshal("image", a(p))
}

// MarshalJSON encodes the part with "type": "reasoning".
func (p ReasoningPart) MarshalJSON() ([]byte, error) {
	type a ReasoningPart
	return tagged.Marshal("reasoning", a(p))
}

// MarshalJSON encodes the part with "type": "tool_use", its arguments as
// [MaxStoredArgsDepth] describes.
func (p ToolUsePart) MarshalJSON() ([]byte, error) {
	type a ToolUsePart
	if len(p.Args) == 0 {
		p.Args = json.RawMessage("{}")
	}
	if storedargs.Storable(p.Args, MaxStoredArgsDepth) {
		return tagged.Marshal("tool_use", a(p))
	}
	return tagged.Marshal("tool_use", struct {
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		storedargs.Form
	}{p.CallID, p.Name, storedargs.Store(p.Args, MaxStoredArgsDepth)})
}

// MarshalJSON encodes the part with "type": "tool_result".
func (p ToolResultPart) MarshalJSON() ([]byte, error) {
	type a ToolResultPart
	if p.Content == nil {
		p.Content = []ContentPart{}
	}
	return tagged.Marshal("tool_result", a(p))
}

// UnmarshalJSON decodes the result, resolving nested parts by "type".
func (p *ToolResultPart) UnmarshalJSON(data []byte) error {
	var w partWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	w.Type = "tool_result"
	part, err := w.part()
	if err == nil {
		*p = part.(ToolResultPart)
	}
	return err
}

// partWire is every content part's JSON members at once, so a part (and
// nested tool-result content) decodes in one pass whatever its "type".
type partWire struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	URL       string          `json:"url"`
	MediaType string          `json:"media_type"`
	Data      json.RawMessage `json:"data"` // image: base64 bytes; reasoning: a string
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	ArgsText  string          `json:"args_text"`
	ArgsBytes []byte          `json:"args_bytes"`
	Content   wireParts       `json:"content"`
	IsError   bool            `json:"is_error"`
}

type wireParts []partWire

func (w *partWire) part() (ContentPart, error) {
	switch w.Type {
	case "text":
		return TextPart{Text: w.Text}, nil
	case "image":
		p := ImagePart{URL: w.URL, MediaType: w.MediaType}
		if len(w.Data) > 0 {
			if err := json.Unmarshal(w.Data, &p.Data); err != nil {
				return nil, fmt.Errorf("helikon: image part data: %w", err)
			}
		}
		return p, nil
	case "reasoning":
		p := ReasoningPart{Text: w.Text, Signature: w.Signature, ID: w.ID}
		if len(w.Data) > 0 {
			if err := json.Unmarshal(w.Data, &p.Data); err != nil {
				return nil, fmt.Errorf("helikon: reasoning part data: %w", err)
			}
		}
		return p, nil
	case "tool_use":
		return ToolUsePart{CallID: w.CallID, Name: w.Name, Args: storedargs.Restore(w.Args, w.ArgsText, w.ArgsBytes)}, nil
	case "tool_result":
		content, err := w.Content.parts()
		if err != nil {
			return nil, err
		}
		return ToolResultPart{CallID: w.CallID, Name: w.Name, Content: content, IsError: w.IsError}, nil
	case "":
		return nil, fmt.Errorf("helikon: content part: missing \"type\" member")
	}
	return nil, fmt.Errorf("helikon: unknown content part type %q", w.Type)
}

func (ws wireParts) parts() ([]ContentPart, error) {
	if ws == nil {
		return nil, nil
	}
	parts := make([]ContentPart, len(ws))
	for i := range ws {
		p, err := ws[i].part()
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return parts, nil
}

// UnmarshalContentPart decodes one content part by its "type" member.
func UnmarshalContentPart(data []byte) (ContentPart, error) {
	var w partWire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("helikon: content part: %w", err)
	}
	return w.part()
}
