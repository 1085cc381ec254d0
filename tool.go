package helikon

import (
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is a callable the model may invoke mid-run.
//
// InputSchema describes the arguments object; Call receives the arguments as
// the model sent them. A Tool must be safe for concurrent use: the loop runs
// the calls of one turn in parallel.
//
// Most tools are built with [NewTool]. Implement [EffectTool] to declare a
// [ToolEffect]; tools that do not are treated as side-effecting.
//
// Call must return promptly once tc (a [context.Context]) is done. A run does
// not wait for a call that ignores it: once the run's context has ended, it
// waits at most [RunConfig].CancelGrace, then ends as cancelled without the
// call, whose result is dropped; [Stragglers] counts the call until it
// returns, and a warning is logged. A tool that promises to keep the
// clause ([CancelAwareTool]) is trusted instead, and saves the run a
// hand-off.
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
// because it only computes or waits on what watches that context (a
// request made with it, a select on tc.Done()).
//
// A run whose context can be cancelled hands its tool calls to worker
// goroutines, so that a call ignoring cancellation cannot hold it past
// [RunConfig].CancelGrace; that hand-off costs every tool round. A round
// whose tools all make the promise (and which no hook, approval handler,
// or authorizer or redactor other than the default ones takes part in)
// runs on the run's own goroutine instead, as on a context that cannot be
// cancelled.
// The price is that a tool breaking the promise holds a cancelled run
// until it returns: the grace period does not bound it, and the run logs
// a warning naming the tool when one of its calls ran longer than the
// grace period and returned after the run was cancelled. [NewTool] makes
// the promise with [WithHonoursCancellation].
type CancelAwareTool interface {
	Tool
	HonoursCancellation() bool
}

// honoursCancellation reports whether t promises to return promptly once
// its context is done (see [CancelAwareTool]).
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

// ToolOutput is what a tool returns to the model. Content is the tool's raw
// JSON. Parts, when set, replace Content with richer results (images from an
// MCP server, for example).
type ToolOutput struct {
	Content json.RawMessage
	Parts   []ContentPart
}

// TextOutput returns a ToolOutput holding s as a JSON string.
func TextOutput(s string) ToolOutput {
	b, _ := json.Marshal(s)
	return ToolOutput{Content: b}
}

// parts returns the output as content parts for a tool-result item.
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

// ToolResult is the settled outcome of one [ToolCall], as the loop feeds it
// back to the model.
type ToolResult struct {
	CallID  string        `json:"call_id"`
	Name    string        `json:"name"`
	Content []ContentPart `json:"content"`
	IsError bool          `json:"is_error,omitempty"`
	// InvalidArgs marks a result that reports a schema miss; the loop allows
	// one such miss per tool before failing the run.
	InvalidArgs bool `json:"invalid_args,omitempty"`
	// StartedAt and EndedAt are when the tool began and returned; zero
	// when it did not run. Its [ToolOutputItem] carries them.
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// UnmarshalJSON decodes the result, resolving content parts by "type".
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	var raw struct {
		CallID      string    `json:"call_id"`
		Name        string    `json:"name"`
		Content     wireParts `json:"content"`
		IsError     bool      `json:"is_error"`
		InvalidArgs bool      `json:"invalid_args"`
		StartedAt   time.Time `json:"started_at"`
		EndedAt     time.Time `json:"ended_at"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	parts, err := raw.Content.parts()
	if err != nil {
		return err
	}
	*r = ToolResult{CallID: raw.CallID, Name: raw.Name, Content: parts, IsError: raw.IsError, InvalidArgs: raw.InvalidArgs,
		StartedAt: raw.StartedAt, EndedAt: raw.EndedAt}
	return nil
}

func (r ToolResult) item() Item {
	return Item{Role: RoleTool, Content: []ContentPart{r.part()}}
}

// part returns the result as the tool-result part of its item.
func (r ToolResult) part() ContentPart {
	return ToolResultPart{CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError}
}
