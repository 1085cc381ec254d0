package temporal

import (
	"encoding/json"
	"fmt"

	"github.com/paigasus/helikon"
)

// events is a list of events that crosses a Temporal payload: each event
// marshals with its "type" member and decodes with [helikon.UnmarshalEvent].
type events []helikon.Event

// MarshalJSON encodes the events as a JSON array.
func (e events) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	return json.Marshal([]helikon.Event(e))
}

// UnmarshalJSON decodes each event by its "type".
func (e *events) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*e = nil
		return nil
	}
	out := make(events, len(raw))
	for i, r := range raw {
		ev, err := helikon.UnmarshalEvent(r)
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		out[i] = ev
	}
	*e = out
	return nil
}

// runInput is the agent-run workflow's input.
type runInput struct {
	Agent string         `json:"agent"`
	Input []helikon.Item `json:"input"`
	// Seed is the caller's explicit, serialisable run seed; the worker's
	// context factory turns it into the run's user value.
	Seed json.RawMessage `json:"seed,omitempty"`
}

// runOutput is the agent-run workflow's result.
type runOutput struct {
	Output    string              `json:"output"`
	LastAgent string              `json:"last_agent,omitempty"`
	Usage     helikon.Usage       `json:"usage"`
	Err       *helikon.AgentError `json:"error,omitempty"`
	// Events counts the run's events, so a client knows when it has read
	// them all.
	Events int `json:"events"`
}

// eventPage answers the events query: the run's events from an offset.
type eventPage struct {
	Events events `json:"events"`
	// Next is the offset to ask from next.
	Next int `json:"next"`
}

// stepIn is what every step activity receives: the agent, its depth and
// the run's seed.
type stepIn struct {
	Agent agentRef        `json:"agent"`
	Seed  json.RawMessage `json:"seed,omitempty"`
}

type startIn struct {
	stepIn
	Input []helikon.Item `json:"input"`
}

type startOut struct {
	System  []helikon.Item `json:"system,omitempty"`
	Inject  []string       `json:"inject,omitempty"`
	Failure events         `json:"failure,omitempty"`
}

type modelIn struct {
	stepIn
	Turn    int                   `json:"turn"`
	Request *helikon.ModelRequest `json:"request"`
	Inject  []string              `json:"inject,omitempty"`
}

// modelOut is a settled model turn or the error that ended it. A model
// error is data, not an activity failure, so Temporal does not retry it.
type modelOut struct {
	Response *helikon.ModelResponse `json:"response,omitempty"`
	Err      *helikon.AgentError    `json:"error,omitempty"`
}

type toolIn struct {
	stepIn
	Call helikon.ToolCall `json:"call"`
}

type toolOut struct {
	Result helikon.ToolResult `json:"result"`
	Events events             `json:"events,omitempty"`
	Inject []string           `json:"inject,omitempty"`
}

type hookIn struct {
	stepIn
	Event helikon.HookEvent `json:"event"`
}

type hookOut struct {
	Denied bool   `json:"denied,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type finishIn struct {
	stepIn
	Output    string `json:"output"`
	HandedOff bool   `json:"handed_off,omitempty"`
}

type finishOut struct {
	Failure events `json:"failure,omitempty"`
}

// abortOf turns a model step's outcome into the transition input.
func (m modelOut) input() helikon.TransitionInput {
	if m.Err != nil {
		return helikon.Abort{Err: m.Err}
	}
	if m.Response == nil {
		return helikon.Abort{Err: &helikon.AgentError{Kind: helikon.KindOther, Message: "model step returned nothing"}}
	}
	return *m.Response
}
