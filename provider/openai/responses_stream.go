package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsonscan"
	"github.com/paigasus/helikon/provider/internal/httpx"
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
	// Arguments completes a function call
	// (response.function_call_arguments.done).
	Arguments *string `json:"arguments"`
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
	Usage *responseUsage `json:"usage"`
}

type responseUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// reusedString decodes a JSON string, keeping the previous value (and its
// allocation) when the new one is equal. set records whether the event
// being decoded had the member at all; the caller clears it before each.
type reusedString struct {
	s   string
	set bool
}

// get returns the value the current event carried, or "".
func (r *reusedString) get() string {
	if !r.set {
		return ""
	}
	return r.s
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *reusedString) UnmarshalJSON(b []byte) error {
	r.set = true
	if len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && string(b[1:len(b)-1]) == r.s {
		return nil
	}
	if string(b) == "null" {
		r.s = ""
		return nil
	}
	return json.Unmarshal(b, &r.s)
}

// call is a function call item in progress: its call id and the arguments
// delivered so far, kept to check the item's done events against.
type call struct {
	id   string
	args []byte
	// sent records that arguments were delivered, even empty ones.
	sent bool
}

type responsesDecoder struct {
	ev       responsesEvent
	buf      []byte           // scratch for decoding delta strings
	calls    map[string]*call // by output item id
	refusal  []byte
	anyCalls bool
	// slowOnly turns the fast path off, so tests can check both paths
	// translate every recording alike.
	slowOnly bool
	// vals is scratch for [jsonscan.Object].
	vals [10][]byte
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
	e.Delta, e.Summary, e.Item, e.Response, e.Code, e.Message, e.Error, e.Arguments = "", 0, nil, nil, nil, "", nil, nil
	e.ItemID.set = false
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
			return yield(helikon.ReasoningDelta{Text: "\n\n", ID: e.ItemID.get()}, nil), false
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return yield(helikon.ReasoningDelta{Text: e.Delta, ID: e.ItemID.get()}, nil), false
	case "response.output_item.added":
		if it := e.Item; it != nil && it.Type == "function_call" {
			return d.startCall(it, yield), false
		}
	case "response.function_call_arguments.delta":
		c, err := d.call(e.ItemID.get())
		if err != nil {
			yield(nil, err)
			return false, true
		}
		return d.args(c, e.Delta, yield), false
	case "response.function_call_arguments.done":
		c, err := d.call(e.ItemID.get())
		if err == nil && e.Arguments == nil {
			err = httpx.Malformed(providerName, fmt.Errorf("arguments done event for item %q has no arguments", e.ItemID.get()))
		}
		if err != nil {
			yield(nil, err)
			return false, true
		}
		return d.finalArgs(c, *e.Arguments, yield), false
	case "response.output_item.done":
		it := e.Item
		switch {
		case it == nil:
		case it.Type == "function_call":
			c, known := d.calls[it.ID]
			if !known {
				// A server that skipped output_item.added: the done item
				// carries the whole call.
				if !d.startCall(it, yield) {
					return false, false
				}
				c = d.calls[it.ID]
			}
			return d.finalArgs(c, it.Arguments, yield), false
		case it.Type == "reasoning" && it.EncryptedContent != "":
			// Encrypted reasoning completes the reasoning block; it must go
			// back unchanged when the caller keeps state itself (store=false).
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

// startCall records a function call item and yields its first delta.
func (d *responsesDecoder) startCall(it *outputItem, yield func(helikon.ModelEvent, error) bool) bool {
	if d.calls == nil {
		d.calls = map[string]*call{}
	}
	c := &call{id: it.CallID}
	d.calls[it.ID] = c
	d.anyCalls = true
	c.args = append(c.args, it.Arguments...)
	c.sent = it.Arguments != ""
	return yield(helikon.ToolCallDelta{CallID: it.CallID, Name: it.Name, ArgsDelta: it.Arguments}, nil)
}

// call returns the call an argument event names. An unknown item id is a
// corrupt stream: the arguments could not be given to any call.
func (d *responsesDecoder) call(itemID string) (*call, *helikon.ModelError) {
	if c, ok := d.calls[itemID]; ok {
		return c, nil
	}
	return nil, httpx.Malformed(providerName, fmt.Errorf("function call arguments for unknown item %q", itemID))
}

// args yields an argument delta of c.
func (d *responsesDecoder) args(c *call, delta string, yield func(helikon.ModelEvent, error) bool) bool {
	c.args = append(c.args, delta...)
	c.sent = true
	return yield(helikon.ToolCallDelta{CallID: c.id, ArgsDelta: delta}, nil)
}

// finalArgs takes the complete arguments of a done event. Some compatible
// servers (LM Studio) send them only there, with no deltas: they are then
// the call's arguments. When deltas did deliver them, the two must agree,
// or the stream is corrupt and the call's arguments unknowable.
func (d *responsesDecoder) finalArgs(c *call, final string, yield func(helikon.ModelEvent, error) bool) bool {
	if !c.sent {
		return d.args(c, final, yield)
	}
	if string(c.args) != final && !sameJSON(c.args, []byte(final)) {
		yield(nil, httpx.Malformed(providerName, fmt.Errorf("call %s: final arguments %q disagree with the streamed %q", c.id, final, c.args)))
		return false
	}
	return true
}

// sameJSON reports whether a and b are the same JSON value, so a server
// that re-serialises the arguments in its done event is not refused.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
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

// responsesKeys are the members of a stream event [responsesEvent]
// decodes; the fast path reads them all so it can tell when an event holds
// anything the general path would read differently.
var responsesKeys = jsonscan.MustKeys("type", "item_id", "delta", "summary_index", "item", "response", "code", "message", "error", "arguments")

// fast handles the text, reasoning and argument deltas that make up nearly
// all of a stream without encoding/json; other events take the general path.
func (d *responsesDecoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	v := d.vals[:]
	if !jsonscan.Object(data, responsesKeys, v) {
		return false, true
	}
	typ, id := v[0], v[1]
	switch string(typ) {
	case `"response.output_text.delta"`, `"response.function_call_arguments.delta"`,
		`"response.reasoning_summary_text.delta"`, `"response.reasoning_text.delta"`:
	case `"response.created"`, `"response.in_progress"`, `"response.completed"`:
		return d.lifecycle(typ, v, yield)
	default:
		return false, true
	}
	for _, other := range v[3:] {
		if other != nil {
			return false, true
		}
	}
	if len(id) < 2 || id[0] != '"' {
		return false, true
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[2]); !ok {
		return false, true
	}
	if string(typ) == `"response.output_text.delta"` {
		return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
	}
	// The item id is compared raw, so leave escaped ones to the general path.
	if bytes.IndexByte(id, '\\') >= 0 {
		return false, true
	}
	id = id[1 : len(id)-1]
	switch string(typ) {
	case `"response.function_call_arguments.delta"`:
		c, known := d.calls[string(id)]
		if !known {
			return false, true // the general path reports it
		}
		return true, d.args(c, string(d.buf), yield)
	}
	// Reasoning: the item id repeats on every delta; keep one copy.
	if string(id) != d.ev.ItemID.s {
		d.ev.ItemID.s = string(id)
	}
	return true, yield(helikon.ReasoningDelta{Text: string(d.buf), ID: d.ev.ItemID.s}, nil)
}

// responseObjectKeys holds the members of a response object and of its
// usage that [responseObject] decodes: the fast path reads them all, as for
// [responsesKeys]. They are built on first use, not at package init: only
// the few lifecycle events of a Responses stream read them, and a program
// that never streams from Responses should not pay for them as it starts.
var responseObjectKeys = sync.OnceValue(func() *responseObjectKeySets {
	return &responseObjectKeySets{
		response:  jsonscan.MustKeys("id", "model", "error", "incomplete_details", "usage"),
		usage:     jsonscan.MustKeys("input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details"),
		cached:    jsonscan.MustKeys("cached_tokens"),
		reasoning: jsonscan.MustKeys("reasoning_tokens"),
	}
})

// responseObjectKeySets is what [responseObjectKeys] builds.
type responseObjectKeySets struct {
	response, usage, cached, reasoning *jsonscan.Keys
}

// lifecycle handles response.created, response.in_progress and
// response.completed, large events that repeat the whole response, from
// the members fast has read (v, by [responsesKeys]), reading only what
// [responseObject] decodes. Anything encoding/json could read differently
// or refuse (an error or incomplete_details, a count that is not a plain
// integer, a string with invalid UTF-8, a member of another type) is left to
// the general path, which decides.
func (d *responsesDecoder) lifecycle(typ []byte, v [][]byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	for k, m := range v[1:] {
		if (m != nil) != (k+1 == 5) { // the response and nothing else
			return false, true
		}
	}
	keys := responseObjectKeys()
	var rv [5][]byte
	if !jsonscan.Nested(v[5], keys.response, rv[:]) || !jsonscan.IsNull(rv[2]) || !jsonscan.IsNull(rv[3]) {
		return false, true
	}
	r := &responseObject{}
	var ok bool
	if r.ID, ok = d.optString(rv[0]); !ok {
		return false, true
	}
	if r.Model, ok = d.optString(rv[1]); !ok {
		return false, true
	}
	if !jsonscan.IsNull(rv[4]) {
		var uv [4][]byte
		if !jsonscan.Nested(rv[4], keys.usage, uv[:]) {
			return false, true
		}
		u := &responseUsage{}
		r.Usage = u
		if !optCount(uv[0], &u.InputTokens) || !optCount(uv[1], &u.OutputTokens) ||
			!optNestedCount(uv[2], keys.cached, &u.InputTokensDetails.CachedTokens) ||
			!optNestedCount(uv[3], keys.reasoning, &u.OutputTokensDetails.ReasoningTokens) {
			return false, true
		}
	}
	e := responsesEvent{Type: string(typ[1 : len(typ)-1]), Response: r}
	more, done := d.event(&e, yield)
	return true, more && !done
}

// optString decodes a string member that may be absent or null ("").
func (d *responsesDecoder) optString(raw []byte) (string, bool) {
	if jsonscan.IsNull(raw) {
		return "", true
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], raw); !ok {
		return "", false
	}
	return string(d.buf), true
}

// optCount decodes a token count that may be absent or null (left 0); a
// count that is not a plain non-negative integer reports false.
func optCount(raw []byte, n *int64) bool {
	if jsonscan.IsNull(raw) {
		return true
	}
	i, ok := jsonscan.Int(raw)
	*n = int64(i)
	return ok
}

// optNestedCount decodes the one count keys names in the object raw, which
// may be absent or null.
func optNestedCount(raw []byte, keys *jsonscan.Keys, n *int64) bool {
	if jsonscan.IsNull(raw) {
		return true
	}
	var v [1][]byte
	return jsonscan.Nested(raw, keys, v[:]) && optCount(v[0], n)
}
