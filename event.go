package helikon

import (
	"encoding/json"
	"time"

	"github.com/paigasus/helikon/internal/tagged"
)

// Event is one element of an agent's stream. The variants:
//
//   - lifecycle: [RunStarted], [TurnStarted], [ModelResponded], [AgentUpdated]
//   - raw deltas, as the model emits them: [TokenDelta], [ReasoningDelta], [ToolCallDelta]
//   - settled items: [MessageOutput], [ToolCallItem], [ToolOutputItem], [HandoffItem]
//   - control: [GuardrailTriggered], [ApprovalRequested], [PermissionDenied],
//     [RepairStarted], [StructuredOutputFailed]
//   - terminal: [RunCompleted], [RunFailed], [RunPaused]
//   - nesting: [SubRunEvent], an agent tool's sub-run's event
//
// Every event but the raw deltas carries At, the time the run emitted it
// (UTC; JSON "at", RFC 3339 with nanoseconds), read once per step of the
// run; [EventTime] reads it from any variant. The clock is read as the
// monotonic time since a base of the wall clock taken at most 100 ms
// earlier, one clock reading where time.Now takes two: a step of the
// system's clock (settimeofday, an NTP step) or a suspend of the machine
// shows in event times up to 100 ms (of running time) late. A field At documented on its
// own says where it differs. Every Event marshals to JSON with a "type"
// member and decodes with [UnmarshalEvent]. New variants may be added;
// consumers should have a default arm.
type Event interface {
	at() time.Time // At, the zero time for the raw deltas
}

// RunStarted opens an agent's run.
type RunStarted struct {
	Agent string    `json:"agent"`
	At    time.Time `json:"at,omitzero"`
	// Events, when above zero, is about how many events the run expects
	// to send, this one included: a hint a consumer that keeps them may
	// size its buffer by ([Collector] does, up to maxEventsHint). A
	// parallel or graph agent, which knows its children, sets it. It is
	// not part of the event's JSON.
	Events int `json:"-"`
}

// TurnStarted opens a model turn (counted from 1).
type TurnStarted struct {
	Agent string    `json:"agent,omitempty"`
	Turn  int       `json:"turn"`
	At    time.Time `json:"at,omitzero"`
}

// ModelResponded reports one settled model response, ahead of the items
// it produced, so a stream tells what each model call spent. A response
// that crosses the run's [Budget] ends the run instead, with a [RunFailed]
// whose Usage counts it.
type ModelResponded struct {
	Agent string `json:"agent,omitempty"`
	Turn  int    `json:"turn"`
	// Model is the model that answered, as the provider named it, else the
	// agent's model id ([ModelInfo]), else empty.
	Model      string       `json:"model,omitempty"`
	ResponseID string       `json:"response_id,omitempty"`
	Finish     FinishReason `json:"finish,omitempty"`
	Usage      Usage        `json:"usage"`
	// At is when the response settled: its last event arrived.
	At time.Time `json:"at,omitzero"`
	// FirstTokenAt is when the first streamed delta arrived (zero: the
	// model does not stream). Time to first token is FirstTokenAt less the
	// At of the event before this one, the call's duration At less that.
	FirstTokenAt time.Time `json:"first_token_at,omitzero"`
}

// MessageOutput carries a settled assistant message.
type MessageOutput struct {
	Item Item      `json:"item"`
	At   time.Time `json:"at,omitzero"`
}

// ToolCallItem carries one settled tool call (an assistant item holding one
// [ToolUsePart]).
type ToolCallItem struct {
	Item Item      `json:"item"`
	At   time.Time `json:"at,omitzero"`
}

// ToolOutputItem carries one tool result (a tool item holding one
// [ToolResultPart]).
type ToolOutputItem struct {
	Item Item `json:"item"`
	// At is when the tool returned (or, for a result the run made up, when
	// the run settled it).
	At time.Time `json:"at,omitzero"`
	// StartedAt is when the tool began (zero: it did not run); parallel
	// calls of one round overlap in [StartedAt, At).
	StartedAt time.Time `json:"started_at,omitzero"`
}

// HandoffItem records control passing from one agent to another.
type HandoffItem struct {
	From string    `json:"from"`
	To   string    `json:"to"`
	At   time.Time `json:"at,omitzero"`
}

// AgentUpdated says which agent now drives the run.
type AgentUpdated struct {
	Agent string    `json:"agent"`
	At    time.Time `json:"at,omitzero"`
}

// GuardrailTriggered reports a tripped guardrail; the run then fails.
type GuardrailTriggered struct {
	Kind GuardrailKind `json:"kind"`
	Info any           `json:"info,omitempty"`
	At   time.Time     `json:"at,omitzero"`
}

// ApprovalRequested reports a tool call put to a human, as the
// [ApprovalHandler] is asked or, without one, for whoever resumes the paused
// run. ID is the approval id a [Decision] names; Args are redacted.
type ApprovalRequested struct {
	ID     string          `json:"id,omitempty"`
	Agent  string          `json:"agent,omitempty"`
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Prompt string          `json:"prompt,omitempty"`
	// AskedBy names the rule or mode that asked.
	AskedBy string    `json:"asked_by,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// PermissionDenied reports a tool call the governance layer refused.
type PermissionDenied struct {
	CallID string    `json:"call_id,omitempty"`
	Tool   string    `json:"tool"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at,omitzero"`
}

// RepairStarted opens the repair turn after a structured-output miss.
type RepairStarted struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at,omitzero"`
}

// StructuredOutputFailed reports a final answer that did not match the
// output schema even after repair.
type StructuredOutputFailed struct {
	SchemaErrors []string  `json:"schema_errors"`
	FinalText    string    `json:"final_text"`
	At           time.Time `json:"at,omitzero"`
}

// RunCompleted ends a successful run with its summed usage.
type RunCompleted struct {
	// Agent names the agent whose output ended the run ([RunResult].LastAgent):
	// a handoff's target, a sequential or loop workflow's last step, the
	// swarm member that answered; parallel and graph workflows, which
	// compose their own output, name themselves.
	Agent string `json:"agent,omitempty"`
	Usage Usage  `json:"usage"`
	// Structured reports that the answering agent validated the final
	// output against its output type ([WithOutput]).
	Structured bool      `json:"structured,omitempty"`
	At         time.Time `json:"at,omitzero"`
}

// RunFailed ends a failed run, usually with an [*AgentError], and what the
// run spent before it failed.
type RunFailed struct {
	Err   error     `json:"-"`
	Usage Usage     `json:"usage"`
	At    time.Time `json:"at,omitzero"`
}

// RunPaused ends a run that waits for human decisions on the calls its
// State lists as pending; [Resume] continues it.
type RunPaused struct {
	Agent string    `json:"agent,omitempty"`
	State *RunState `json:"state"`
	Usage Usage     `json:"usage"`
	At    time.Time `json:"at,omitzero"`
}

// MarshalJSON encodes the event with "type": "run_started".
func (e RunStarted) MarshalJSON() ([]byte, error) {
	type a RunStarted
	return tagged.Marshal("run_started", a(e))
}

// MarshalJSON encodes the event with "type": "turn_started".
func (e TurnStarted) MarshalJSON() ([]byte, error) {
	type a TurnStarted
	return tagged.Marshal("turn_started", a(e))
}

// MarshalJSON encodes the event with "type": "model_responded".
func (e ModelResponded) MarshalJSON() ([]byte, error) {
	type a ModelResponded
	return tagged.Marshal("model_responded", a(e))
}

// MarshalJSON encodes the event with "type": "token_delta".
func (e TokenDelta) MarshalJSON() ([]byte, error) {
	type a TokenDelta
	return tagged.Marshal("token_delta", a(e))
}

// MarshalJSON encodes the event with "type": "reasoning_delta".
func (e ReasoningDelta) MarshalJSON() ([]byte, error) {
	type a ReasoningDelta
	return tagged.Marshal("reasoning_delta", a(e))
}

// MarshalJSON encodes the event with "type": "tool_call_delta".
func (e ToolCallDelta) MarshalJSON() ([]byte, error) {
	type a ToolCallDelta
	return tagged.Marshal("tool_call_delta", a(e))
}

// MarshalJSON encodes the event with "type": "message_output".
func (e MessageOutput) MarshalJSON() ([]byte, error) {
	type a MessageOutput
	return tagged.Marshal("message_output", a(e))
}

// MarshalJSON encodes the event with "type": "tool_call_item".
func (e ToolCallItem) MarshalJSON() ([]byte, error) {
	type a ToolCallItem
	return tagged.Marshal("tool_call_item", a(e))
}

// MarshalJSON encodes the event with "type": "tool_output_item".
func (e ToolOutputItem) MarshalJSON() ([]byte, error) {
	type a ToolOutputItem
	return tagged.Marshal("tool_output_item", a(e))
}

// MarshalJSON encodes the event with "type": "handoff_item".
func (e HandoffItem) MarshalJSON() ([]byte, error) {
	type a HandoffItem
	return tagged.Marshal("handoff_item", a(e))
}

// MarshalJSON encodes the event with "type": "agent_updated".
func (e AgentUpdated) MarshalJSON() ([]byte, error) {
	type a AgentUpdated
	return tagged.Marshal("agent_updated", a(e))
}

// MarshalJSON encodes the event with "type": "guardrail_triggered".
func (e GuardrailTriggered) MarshalJSON() ([]byte, error) {
	type a GuardrailTriggered
	return tagged.Marshal("guardrail_triggered", a(e))
}

// MarshalJSON encodes the event with "type": "approval_requested".
func (e ApprovalRequested) MarshalJSON() ([]byte, error) {
	type a ApprovalRequested
	return tagged.Marshal("approval_requested", a(e))
}

// MarshalJSON encodes the event with "type": "permission_denied".
func (e PermissionDenied) MarshalJSON() ([]byte, error) {
	type a PermissionDenied
	return tagged.Marshal("permission_denied", a(e))
}

// MarshalJSON encodes the event with "type": "repair_started".
func (e RepairStarted) MarshalJSON() ([]byte, error) {
	type a RepairStarted
	return tagged.Marshal("repair_started", a(e))
}

// MarshalJSON encodes the event with "type": "structured_output_failed".
func (e StructuredOutputFailed) MarshalJSON() ([]byte, error) {
	type a StructuredOutputFailed
	return tagged.Marshal("structured_output_failed", a(e))
}

// MarshalJSON encodes the event with "type": "run_completed".
func (e RunCompleted) MarshalJSON() ([]byte, error) {
	type a RunCompleted
	return tagged.Marshal("run_completed", a(e))
}

// MarshalJSON encodes the event with "type": "run_paused".
func (e RunPaused) MarshalJSON() ([]byte, error) {
	type a RunPaused
	return tagged.Marshal("run_paused", a(e))
}

// MarshalJSON encodes the event with "type": "run_failed" and the error as
// {"kind", "message"} (and the structured-output detail when present).
func (e RunFailed) MarshalJSON() ([]byte, error) {
	return tagged.Marshal("run_failed", struct {
		Error *AgentError `json:"error"`
		Usage Usage       `json:"usage"`
		At    time.Time   `json:"at,omitzero"`
	}{toAgentError(e.Err), e.Usage, e.At})
}

// UnmarshalJSON decodes a run_failed event; Err becomes an [*AgentError]
// that still matches its kind's sentinel with errors.Is.
func (e *RunFailed) UnmarshalJSON(data []byte) error {
	var raw struct {
		Error *AgentError `json:"error"`
		Usage Usage       `json:"usage"`
		At    time.Time   `json:"at"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Error == nil {
		raw.Error = &AgentError{Kind: KindOther}
	}
	*e = RunFailed{Err: raw.Error, Usage: raw.Usage, At: raw.At}
	return nil
}

var eventUnion = tagged.NewUnion("event", func() map[string]func([]byte) (Event, error) {
	return map[string]func([]byte) (Event, error){
		"run_started":              tagged.DecodeAs[RunStarted, Event],
		"turn_started":             tagged.DecodeAs[TurnStarted, Event],
		"model_responded":          tagged.DecodeAs[ModelResponded, Event],
		"sub_run_event":            tagged.DecodeAs[SubRunEvent, Event],
		"token_delta":              tagged.DecodeAs[TokenDelta, Event],
		"reasoning_delta":          tagged.DecodeAs[ReasoningDelta, Event],
		"tool_call_delta":          tagged.DecodeAs[ToolCallDelta, Event],
		"message_output":           tagged.DecodeAs[MessageOutput, Event],
		"tool_call_item":           tagged.DecodeAs[ToolCallItem, Event],
		"tool_output_item":         tagged.DecodeAs[ToolOutputItem, Event],
		"handoff_item":             tagged.DecodeAs[HandoffItem, Event],
		"agent_updated":            tagged.DecodeAs[AgentUpdated, Event],
		"guardrail_triggered":      tagged.DecodeAs[GuardrailTriggered, Event],
		"approval_requested":       tagged.DecodeAs[ApprovalRequested, Event],
		"permission_denied":        tagged.DecodeAs[PermissionDenied, Event],
		"repair_started":           tagged.DecodeAs[RepairStarted, Event],
		"structured_output_failed": tagged.DecodeAs[StructuredOutputFailed, Event],
		"run_completed":            tagged.DecodeAs[RunCompleted, Event],
		"run_failed":               tagged.DecodeAs[RunFailed, Event],
		"run_paused":               tagged.DecodeAs[RunPaused, Event],
	}
})

// UnmarshalEvent decodes one event by its "type" member.
func UnmarshalEvent(data []byte) (Event, error) { return eventUnion.Decode(data) }
