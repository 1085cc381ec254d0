package bedrock

import (
	"encoding/json"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsonscan"
)

// The adapter reads the event stream of a ConverseStream response itself
// (the SDK's event reader decoded every event through its generic schema
// serde and handed it across two goroutines, about 55 allocations and
// 25 µs per text delta, where the 1,000-delta decode has a budget of 3
// allocations per delta and 2 ms in all). The event payloads are the JSON
// shapes of the Bedrock Runtime service model (ConverseStreamOutput's
// members), read here with encoding/json, and the text and tool-input
// deltas that make up nearly all of a stream through jsonscan first.

// wireEvent is the union of the ConverseStreamOutput events' payloads.
type wireEvent struct {
	ContentBlockIndex *int32 `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *struct {
			Text            string `json:"text"`
			Signature       string `json:"signature"`
			RedactedContent string `json:"redactedContent"` // base64
		} `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string `json:"stopReason"`
	Usage      *usage `json:"usage"`
}

// wire translates one message of the event stream. It returns false, with
// the error to report or nil, when the stream ends here.
func (d *decoder) wire(f *frame, yield func(helikon.ModelEvent, error) bool) (bool, error) {
	switch string(f.messageType) {
	case "event":
	case "exception":
		var body struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(f.payload, &body)
		code := []byte(string(f.exceptionType))
		if len(code) > 0 && 'a' <= code[0] && code[0] <= 'z' {
			code[0] -= 'a' - 'A' // throttlingException → ThrottlingException
		}
		return false, &apiError{code: string(code), message: body.Message}
	case "error":
		return false, &apiError{code: string(f.errorCode), message: string(f.errorMessage)}
	default:
		return true, nil // a message type this version does not know
	}
	if string(f.eventType) == "contentBlockDelta" {
		if handled, more := d.fastDelta(f.payload, yield); handled {
			return more, nil
		}
	}
	return d.general(f.eventType, f.payload, yield)
}

// general translates an event through encoding/json.
func (d *decoder) general(eventType, payload []byte, yield func(helikon.ModelEvent, error) bool) (bool, error) {
	var ev wireEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return false, fmt.Errorf("%w: %s event: %w", errMalformedFrame, eventType, err)
	}
	switch string(eventType) {
	case "contentBlockStart":
		if ev.ContentBlockIndex != nil && ev.Start != nil && ev.Start.ToolUse != nil {
			return d.toolStart(*ev.ContentBlockIndex, ev.Start.ToolUse.ToolUseID, ev.Start.ToolUse.Name, yield), nil
		}
	case "contentBlockDelta":
		dl := ev.Delta
		switch {
		case dl == nil:
		case dl.Text != nil:
			return d.text(*dl.Text, yield), nil
		case dl.ToolUse != nil:
			return d.toolInput(ev.ContentBlockIndex, dl.ToolUse.Input, yield), nil
		case dl.ReasoningContent != nil:
			r := helikon.ReasoningDelta{Text: dl.ReasoningContent.Text, Signature: dl.ReasoningContent.Signature}
			if rc := dl.ReasoningContent.RedactedContent; rc != "" {
				r.Data = redactedPrefix + rc
			}
			return d.reasoning(r, yield), nil
		}
	case "messageStop":
		d.stop, d.stopped = ev.StopReason, true
	case "metadata":
		d.usage = ev.Usage
	}
	return true, nil
}

// The members of a contentBlockDelta event and of its delta that the fast
// path reads; "delta" members other than these send the event down the
// general path.
var (
	deltaEventKeys = jsonscan.MustKeys("contentBlockIndex", "delta")
	deltaKeys      = jsonscan.MustKeys("text", "toolUse", "reasoningContent")
	toolUseKeys    = jsonscan.MustKeys("input")
)

// fastDelta handles a text or tool-input delta without encoding/json;
// handled is false for anything else, which then takes the general path.
func (d *decoder) fastDelta(payload []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	v := d.vals[:]
	if !jsonscan.Object(payload, deltaEventKeys, v) || v[1] == nil {
		return false, true
	}
	idx, ok := jsonscan.Int(v[0])
	if !ok || idx < 0 || idx > 1<<31-1 {
		return false, true
	}
	if !jsonscan.Nested(v[1], deltaKeys, v) || v[2] != nil {
		return false, true
	}
	switch {
	case v[0] != nil && v[1] == nil:
		if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[0]); !ok {
			return false, true
		}
		if len(d.buf) == 0 {
			return true, true
		}
		return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
	case v[1] != nil && v[0] == nil:
		if !jsonscan.Nested(v[1], toolUseKeys, v) {
			return false, true
		}
		if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[0]); !ok {
			return false, true
		}
		// Even empty input must name a block opened as a tool use.
		i := int32(idx)
		return true, d.toolInput(&i, string(d.buf), yield)
	}
	return false, true
}
