package helikon

import (
	"encoding/json"

	"github.com/paigasus/helikon/internal/tagged"
)

// LoopState is the phase of an LLM agent's loop; with the conversation it is
// all a run resumed at a transition boundary needs ([Checkpoint]). The
// variants: [CallingModel], [ExecutingTools], [ApplyingHandoff],
// [Finalizing], [RepairingOutput], [NeedsApproval], [Compacting] (reserved)
// and the terminal [Done] and [Failed].
type LoopState interface {
	isLoopState()
}

// Progress is what every non-terminal state carries forward.
type Progress struct {
	// Turn counts model calls, from 1.
	Turn  int   `json:"turn"`
	Usage Usage `json:"usage"`
	// Strikes lists the tools whose arguments already missed their schema
	// once; a second miss fails the run.
	Strikes []string `json:"strikes,omitempty"`
	// ResponseID is the provider's id of the last response.
	ResponseID string `json:"response_id,omitempty"`
}

// progress lets the states that embed a Progress yield it as one case.
func (p Progress) progress() Progress { return p }

// CallingModel is about to call the model for Turn.
type CallingModel struct{ Progress }

// ExecutingTools runs the calls the model requested.
type ExecutingTools struct {
	Progress
	Calls []ToolCall `json:"calls"`
}

// ApplyingHandoff hands the run to Target, threading the conversation.
type ApplyingHandoff struct {
	Progress
	Target string `json:"target"`
}

// Finalizing asks the model for the configured structured output.
type Finalizing struct{ Progress }

// RepairingOutput is the repair turn after a structured-output miss.
type RepairingOutput struct {
	Progress
	Attempt int `json:"attempt"`
}

// Compacting is reserved for in-loop context compaction; not yet driven.
type Compacting struct{ Progress }

// NeedsApproval is a tool round suspended on calls that wait for a human
// decision: the run pauses ([RunPaused]) until [Resume]. Calls is the whole
// round, Pending the calls still undecided (an agent tool whose own run
// paused counts as one); the others settled and do not run again.
type NeedsApproval struct {
	Progress
	Calls   []ToolCall `json:"calls"`
	Pending []ToolCall `json:"pending"`
}

// Done is terminal success.
type Done struct {
	Output string `json:"output"`
	Usage  Usage  `json:"usage"`
}

// Failed is terminal failure.
type Failed struct {
	Err   *AgentError `json:"error"`
	Usage Usage       `json:"usage"`
}

func (CallingModel) isLoopState()    {}
func (ExecutingTools) isLoopState()  {}
func (ApplyingHandoff) isLoopState() {}
func (Finalizing) isLoopState()      {}
func (RepairingOutput) isLoopState() {}
func (Compacting) isLoopState()      {}
func (NeedsApproval) isLoopState()   {}
func (Done) isLoopState()            {}
func (Failed) isLoopState()          {}

// MarshalJSON encodes the state with "type": "calling_model".
func (s CallingModel) MarshalJSON() ([]byte, error) {
	type a CallingModel
	return tagged.Marshal("calling_model", a(s))
}

// MarshalJSON encodes the state with "type": "executing_tools".
func (s ExecutingTools) MarshalJSON() ([]byte, error) {
	type a ExecutingTools
	return tagged.Marshal("executing_tools", a(s))
}

// MarshalJSON encodes the state with "type": "applying_handoff".
func (s ApplyingHandoff) MarshalJSON() ([]byte, error) {
	type a ApplyingHandoff
	return tagged.Marshal("applying_handoff", a(s))
}

// MarshalJSON encodes the state with "type": "finalizing".
func (s Finalizing) MarshalJSON() ([]byte, error) {
	type a Finalizing
	return tagged.Marshal("finalizing", a(s))
}

// MarshalJSON encodes the state with "type": "repairing_output".
func (s RepairingOutput) MarshalJSON() ([]byte, error) {
	type a RepairingOutput
	return tagged.Marshal("repairing_output", a(s))
}

// MarshalJSON encodes the state with "type": "compacting".
func (s Compacting) MarshalJSON() ([]byte, error) {
	type a Compacting
	return tagged.Marshal("compacting", a(s))
}

// MarshalJSON encodes the state with "type": "needs_approval".
func (s NeedsApproval) MarshalJSON() ([]byte, error) {
	type a NeedsApproval
	return tagged.Marshal("needs_approval", a(s))
}

// MarshalJSON encodes the state with "type": "done".
func (s Done) MarshalJSON() ([]byte, error) {
	type a Done
	return tagged.Marshal("done", a(s))
}

// MarshalJSON encodes the state with "type": "failed".
func (s Failed) MarshalJSON() ([]byte, error) {
	type a Failed
	return tagged.Marshal("failed", a(s))
}

var stateUnion = tagged.NewUnion("loop state", func() map[string]func([]byte) (LoopState, error) {
	return map[string]func([]byte) (LoopState, error){
		"calling_model":    tagged.DecodeAs[CallingModel, LoopState],
		"executing_tools":  tagged.DecodeAs[ExecutingTools, LoopState],
		"applying_handoff": tagged.DecodeAs[ApplyingHandoff, LoopState],
		"finalizing":       tagged.DecodeAs[Finalizing, LoopState],
		"repairing_output": tagged.DecodeAs[RepairingOutput, LoopState],
		"compacting":       tagged.DecodeAs[Compacting, LoopState],
		"needs_approval":   tagged.DecodeAs[NeedsApproval, LoopState],
		"done":             tagged.DecodeAs[Done, LoopState],
		"failed":           tagged.DecodeAs[Failed, LoopState],
	}
})

// UnmarshalLoopState decodes a state by its "type" member.
func UnmarshalLoopState(data []byte) (LoopState, error) { return stateUnion.Decode(data) }

// Checkpoint is an LLM agent's run frozen at a transition boundary, which
// [LLMAgent.Resume] resumes; it marshals to JSON and back.
type Checkpoint struct {
	Agent        string    `json:"agent"`
	State        LoopState `json:"state"`
	Conversation []Item    `json:"conversation"`
	// Injections are hook-injected system messages due on the next model call.
	Injections []string `json:"injections,omitempty"`
}

// UnmarshalJSON decodes a checkpoint, resolving the state by its "type".
func (c *Checkpoint) UnmarshalJSON(data []byte) error {
	var raw struct {
		Agent        string          `json:"agent"`
		State        json.RawMessage `json:"state"`
		Conversation []Item          `json:"conversation"`
		Injections   []string        `json:"injections"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	st, err := UnmarshalLoopState(raw.State)
	if err != nil {
		return err
	}
	*c = Checkpoint{Agent: raw.Agent, State: st, Conversation: raw.Conversation, Injections: raw.Injections}
	return nil
}
