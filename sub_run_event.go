package helikon

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/paigasus/helikon/internal/tagged"
)

// SubRunEvent is one event of the run of an agent used as a tool
// ([AgentAsTool]), forwarded into the calling run's stream while the call
// runs. CallID is the calling model's tool call, Tool the agent tool's name
// and Agent the sub-agent's.
//
// Event is the sub-run's own event; a sub-run that calls an agent tool in
// turn forwards that one's events wrapped again, so the nesting follows
// the calls. The sub-run's raw deltas are not forwarded (its settled items
// carry the same text), nor is its [RunPaused]: it pauses the caller, whose
// own RunPaused lists the sub-run's approvals. Consumers that follow only
// the caller's own run skip the variant in their default arm: its usage
// and outcome are already summed into the caller's.
type SubRunEvent struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Agent  string `json:"agent"`
	Event  Event  `json:"event"`
	// At is the wrapped event's time.
	At time.Time `json:"at,omitzero"`
}

var errSubRunNesting = errors.New("helikon: sub_run_event nested deeper than MaxSubRunNesting")

// MarshalJSON encodes the event with "type": "sub_run_event" and the
// wrapped event, with its own "type", under "event".
func (e SubRunEvent) MarshalJSON() ([]byte, error) {
	if e.Event == nil {
		return nil, errors.New("helikon: sub_run_event without an event")
	}
	type a SubRunEvent
	return tagged.Marshal("sub_run_event", a(e))
}

// subRunWire is a sub_run_event with the wrapped event still raw.
type subRunWire struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Agent  string          `json:"agent"`
	Event  json.RawMessage `json:"event"`
	At     time.Time       `json:"at"`
}

// UnmarshalJSON decodes a sub_run_event and its wrapped event, following
// the nesting iteratively up to [MaxSubRunNesting] levels.
func (e *SubRunEvent) UnmarshalJSON(data []byte) error {
	var chain []subRunWire
	for {
		var w subRunWire
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		if len(w.Event) == 0 || string(w.Event) == "null" {
			return errors.New("helikon: sub_run_event without an event")
		}
		chain = append(chain, w)
		if len(chain) > MaxSubRunNesting {
			return errSubRunNesting
		}
		typ, err := tagged.PeekType(w.Event)
		if err != nil {
			return fmt.Errorf("helikon: sub_run_event: %w", err)
		}
		if typ != "sub_run_event" {
			break
		}
		data = w.Event
	}
	inner, err := UnmarshalEvent(chain[len(chain)-1].Event)
	if err != nil {
		return err
	}
	for i := len(chain) - 1; i >= 0; i-- {
		w := chain[i]
		inner = SubRunEvent{CallID: w.CallID, Tool: w.Tool, Agent: w.Agent, Event: inner, At: w.At}
	}
	*e = inner.(SubRunEvent)
	return nil
}

// forwards reports whether a sub-run's event reaches its caller's stream
// (see [SubRunEvent]).
func forwards(ev Event) bool {
	switch ev.(type) {
	case TokenDelta, ReasoningDelta, ToolCallDelta, RunPaused:
		return false
	}
	return true
}
