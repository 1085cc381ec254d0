package helikon

import (
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is a callable the model may invoke mid-run, most often built with
// [NewTool]. InputSchema describes the arguments object; Call receives the
// arguments as the model sent them. A Tool must be safe for concurrent use:
// the loop runs the calls of one turn in parallel. Implement [EffectTool]
// to declare a [ToolEffect]; a tool that does not is side-effecting.
//
// Call must return promptly once tc (a [context.Context]) is done: a run
// waits at most [RunConfig].CancelGrace for a call that ignores it, and logs
// a warning. A tool that promises to keep the clause ([CancelAwareTool]) is
// trusted instead, and saves the run a hand-off.
type Tool interface {
	Name() string
	Description() string
	InputSchema() *jsonschema.Schema
	Call(tc *ToolContext, args json.RawMessage) (ToolOutput, error)
}

// EffectTool is a [Tool] that declares what it does to the world.
type EffectTool interface {
	Tool
	Effect() ToolEffect
}

// CancelAwareTool is a [Tool] that says whether it keeps the cancellation
// clause of the [Tool] contract without exception: HonoursCancellation
// true promises that Call returns promptly once its context is done,
// because it only computes or waits on what watches that context. A round
// whose tools all promise it runs on the run's own goroutine rather than a
// worker's (docs/tools.md, "Cancellation"); a tool breaking the promise
// holds a cancelled run until it returns, and the run logs a warning naming
// it. [WithHonoursCancellation] makes the promise for [NewTool].
type CancelAwareTool interface {
	Tool
	HonoursCancellation() bool
}

func honoursCancellation(t Tool) bool {
	ct, ok := t.(CancelAwareTool)
	return ok && ct.HonoursCancellation()
}

// ToolEffect says what a tool does to the world. The permission layer reads
// it: Plan mode admits only ReadOnly tools, AcceptEdits auto-approves Write.
type ToolEffect int

// The tool effects. The zero value is SideEffect, the safe default.
const (
	SideEffect ToolEffect = iota
	ReadOnly
	Write
)

// String returns the effect's snake_case name.
func (e ToolEffect) String() string {
	switch e {
	case ReadOnly:
		return "read_only"
	case Write:
		return "write"
	}
	return "side_effect"
}

// EffectOf returns t's declared effect, or SideEffect.
func EffectOf(t Tool) ToolEffect {
	if et, ok := t.(EffectTool); ok {
		return et.Effect()
	}
	return SideEffect
}

// ToolOutput is what a tool returns to the model: its raw JSON Content, or
// Parts, when set, for richer results (an MCP server's images, say).
type ToolOutput struct {
	Content json.RawMessage
	Parts   []ContentPart
}

// TextOutput returns a ToolOutput holding s as a JSON string.
func TextOutput(s string) ToolOutput {
	b, _ := json.Marshal(s)
	return ToolOutput{Content: b}
}

func (o ToolOutput) parts() []ContentPart {
	if o.Parts != nil {
		return o.Parts
	}
	return []ContentPart{TextPart{Text: string(o.Content)}}
}

// ToolCall is one call the model requested.
type ToolCall struct {
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
}

// ToolResult is the settled outcome of one [ToolCall].
type ToolResult struct {
	CallID  string        `json:"call_id"`
	Name    string        `json:"name"`
	Content []ContentPart `json:"content"`
	IsError bool          `json:"is_error,omitempty"`
	// InvalidArgs marks a schema miss; a tool's second miss fails the run.
	InvalidArgs bool `json:"invalid_args,omitempty"`
	// StartedAt and EndedAt are when the tool ran (zero: it did not), as
	// its [ToolOutputItem] says.
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// UnmarshalJSON decodes the result, resolving content parts by "type".
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	type plain ToolResult
	var raw struct {
		plain
		Content wireParts `json:"content"` // shadows plain's
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	parts, err := raw.Content.parts()
	if err != nil {
		return err
	}
	*r = ToolResult(raw.plain)
	r.Content = parts
	return nil
}

func (r ToolResult) item() Item {
	return Item{Role: RoleTool, Content: []ContentPart{r.part()}}
}

func (r ToolResult) part() ContentPart {
	return ToolResultPart{CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError}
}
