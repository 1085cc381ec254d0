package server

import (
	"encoding/json"

	"github.com/paigasus/helikon"
)

// eventType returns the "type" member ev marshals with: from its Go type
// for the known variants, else read back from data, so a variant added to
// the core later still gets its name.
func eventType(ev helikon.Event, data []byte) string {
	switch ev.(type) {
	case helikon.TokenDelta:
		return "token_delta"
	case helikon.ReasoningDelta:
		return "reasoning_delta"
	case helikon.ToolCallDelta:
		return "tool_call_delta"
	case helikon.RunStarted:
		return "run_started"
	case helikon.TurnStarted:
		return "turn_started"
	case helikon.ModelResponded:
		return "model_responded"
	case helikon.SubRunEvent:
		return "sub_run_event"
	case helikon.MessageOutput:
		return "message_output"
	case helikon.ToolCallItem:
		return "tool_call_item"
	case helikon.ToolOutputItem:
		return "tool_output_item"
	case helikon.RunCompleted:
		return "run_completed"
	case helikon.RunFailed:
		return "run_failed"
	case helikon.RunPaused:
		return "run_paused"
	}
	var h struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &h) != nil || h.Type == "" {
		return "event"
	}
	return h.Type
}
