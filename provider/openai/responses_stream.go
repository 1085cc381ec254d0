package openai

import (
	"encoding/json"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"github.com/paigasus/helikon/provider/internal/jsonscan"
)

// responsesEvent is the union of the streaming events the adapter reads
// (components/schemas/ResponseStreamEvent). Fields are reused across events;
// ItemID is a [reusedString] so a run of deltas for one item does not
// allocate its id again and again.
type responsesEvent struct {
	Type     string          `json:"type"`
	ItemID   reusedString    `json:"item_id"`
	Delta    string          `json:"delta"`
	Summary  int             `json:"summary_index"`
	Item     *outputItem     `json:"item"`
	Response *responseObject `json:"response"`
	// The error event: flat in the published spec, nested under "error" in
	// some recordings; both are read.
	Code    any       `json:"code"`
	Message string    `json:"message"`
	Error   *apiError `json:"error"`
}

type outputItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
}

type responseObject struct {
	ID                string    `json:"id"`
	Model             string    `json:"model"`
	Error             *apiError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// reusedString decodes a JSON string, keeping the previous value (and its
// allocation) when the new one is equal.
type reusedString struct{ s string }

// UnmarshalJSON implements json.Unmarshaler.
func (r *reusedString) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && string(b[1:len(b)-1]) == r.s {
		return nil
	}
	if string(b) == "null" {
		r.s = ""
		return nil
	}
	return json.Unmarshal(b, &r.s)
}

type responsesDecoder struct {
	ev       responsesEvent
	buf      []byte            // scratch for decoding delta strings
	callIDs  map[string]string // output item id → call id
	refusal  []byte
	anyCalls bool
	// slowOnly turns the fast path off, so tests can check both paths
	// translate every recording alike.
	slowOnly bool
}

// handle translates one stream event; false means the stream is over for
// the caller.
func (d *responsesDecoder) handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	if !d.slowOnly {
		if handled, more := d.fast(data, yield); handled {
			return more
		}
	}
	e := &d.ev
	e.Delta, e.Summary, e.Item, e.Response, e.Code, e.Message, e.Error = "", 0, nil, nil, nil, "", nil
	if err := json.Unmarshal(data, e); err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	more, done := d.event(e, yield)
	return more && !done
}

// event yields what one stream event means. more is false when the consumer
// stopped; done is true after a terminal event.
func (d *responsesDecoder) event(e *responsesEvent, yield func(helikon.ModelEvent, error) bool) (more, done bool) {
	switch e.Type {
	case "response.created":
		if r := e.Response; r != nil {
			return yield(helikon.ResponseInfo{ID: r.ID, Model: r.Model}, nil), false
		}
	case "response.output_text.delta":
		return yield(helikon.TokenDelta{Text: e.Delta}, nil), false
	case "response.refusal.delta":
		d.refusal = append(d.refusal, e.Delta...)
	case "response.reasoning_summary_part.added":
		// Summary parts are paragraphs of one reasoning item; keep them apart.
		if e.Summary > 0 {
			return yield(helikon.ReasoningDelta{Text: "\n\n", ID: e.ItemID.s}, nil), false
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return yield(helikon.ReasoningDelta{Text: e.Delta, ID: e.ItemID.s}, nil), false
	case "response.output_item.added":
		if it := e.Item; it != nil && it.Type == "function_call" {
			if d.callIDs == nil {
				d.callIDs = map[string]string{}
			}
			d.callIDs[it.ID] = it.CallID
			d.anyCalls = true
			return yield(helikon.ToolCallDelta{CallID: it.CallID, Name: it.Name, ArgsDelta: it.Arguments}, nil), false
		}
	case "response.function_call_arguments.delta":
		return yield(helikon.ToolCallDelta{CallID: d.callIDs[e.ItemID.s], ArgsDelta: e.Delta}, nil), false
	case "response.output_item.done":
		// Encrypted reasoning completes the reasoning block; it must go back
		// unchanged when the caller keeps state itself (store=false).
		if it := e.Item; it != nil && it.Type == "reasoning" && it.EncryptedContent != "" {
			return yield(helikon.ReasoningDelta{Data: it.EncryptedContent, ID: it.ID}, nil), false
		}
	case "response.completed", "response.incomplete":
		return d.complete(e.Response, yield), true
	case "response.failed":
		var ae *apiError
		if e.Response != nil {
			ae = e.Response.Error
		}
		yield(nil, classify(helikon.ModelOther, ae))
		return false, true
	case "error":
		ae := e.Error
		if ae == nil {
			ae = &apiError{Code: e.Code, Message: e.Message}
		}
		yield(nil, classify(helikon.ModelOther, ae))
		return false, true
	}
	return true, false
}

func (d *responsesDecoder) complete(r *responseObject, yield func(helikon.ModelEvent, error) bool) bool {
	if r != nil && r.Usage != nil {
		u := r.Usage
		if !yield(helikon.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CachedInputTokens: u.InputTokensDetails.CachedTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}, nil) {
			return false
		}
	}
	if len(d.refusal) > 0 {
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName, Message: string(d.refusal)})
		return false
	}
	reason := helikon.FinishStop
	switch {
	case r != nil && r.IncompleteDetails != nil:
		reason = finishReason(r.IncompleteDetails.Reason)
	case d.anyCalls:
		reason = helikon.FinishToolCalls
	}
	return yield(helikon.Finish{Reason: reason}, nil)
}

// fast handles the text, reasoning and argument deltas that make up nearly
// all of a stream without encoding/json; other events take the general path.
func (d *responsesDecoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	typ := jsonscan.Field(data, "type")
	switch string(typ) {
	case `"response.output_text.delta"`, `"response.function_call_arguments.delta"`,
		`"response.reasoning_summary_text.delta"`, `"response.reasoning_text.delta"`:
	default:
		return false, true
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], jsonscan.Field(data, "delta")); !ok {
		return false, true
	}
	switch string(typ) {
	case `"response.output_text.delta"`:
		return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
	case `"response.function_call_arguments.delta"`:
		id := jsonscan.Field(data, "item_id")
		if len(id) < 2 {
			return false, true
		}
		call, known := d.callIDs[string(id[1:len(id)-1])]
		if !known {
			return false, true
		}
		return true, yield(helikon.ToolCallDelta{CallID: call, ArgsDelta: string(d.buf)}, nil)
	}
	// Reasoning: the item id repeats on every delta; keep one copy.
	id := jsonscan.Field(data, "item_id")
	if len(id) < 2 {
		return false, true
	}
	if raw := id[1 : len(id)-1]; string(raw) != d.ev.ItemID.s {
		d.ev.ItemID.s = string(raw)
	}
	return true, yield(helikon.ReasoningDelta{Text: string(d.buf), ID: d.ev.ItemID.s}, nil)
}
