package mock

import (
	"encoding/json"
	"errors"

	"github.com/paigasus/helikon"
)

// ToolRecord is one recorded tool call: what the tool returned (Output, or
// Parts when it returned content parts) or the error it failed with, so a
// replay answers the call without running a tool that changes the world.
type ToolRecord struct {
	CallID string
	Tool   string
	Args   json.RawMessage
	Output json.RawMessage
	Parts  []helikon.ContentPart
	// Error is the failure's message; set, the call failed.
	Error string
}

// ToolOutput returns the recorded output, or the recorded failure as a
// [helikon.ToolError].
func (r ToolRecord) ToolOutput() (helikon.ToolOutput, error) {
	if r.Error != "" {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: r.Tool, Err: errors.New(r.Error)}
	}
	return helikon.ToolOutput{Content: r.Output, Parts: r.Parts}, nil
}

// toolRecordJSON is a tool record's form in a script file.
type toolRecordJSON struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Output is a string, so the tool's bytes come back exactly, however
	// the file is indented.
	Output *string           `json:"output,omitempty"`
	Parts  []json.RawMessage `json:"parts,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// MarshalJSON encodes the record with its parts tagged by type.
func (r ToolRecord) MarshalJSON() ([]byte, error) {
	w := toolRecordJSON{CallID: r.CallID, Tool: r.Tool, Args: r.Args, Error: r.Error}
	if r.Output != nil {
		out := string(r.Output)
		w.Output = &out
	}
	for _, p := range r.Parts {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		w.Parts = append(w.Parts, b)
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the record, resolving its parts by type.
func (r *ToolRecord) UnmarshalJSON(data []byte) error {
	var w toolRecordJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Tool == "" {
		return errors.New("tool record without a tool name")
	}
	*r = ToolRecord{CallID: w.CallID, Tool: w.Tool, Args: w.Args, Error: w.Error}
	if w.Output != nil {
		r.Output = json.RawMessage(*w.Output)
	}
	for _, raw := range w.Parts {
		p, err := helikon.UnmarshalContentPart(raw)
		if err != nil {
			return err
		}
		r.Parts = append(r.Parts, p)
	}
	return nil
}
