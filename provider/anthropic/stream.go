package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsonscan"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// event is the union of the stream events the adapter reads. It is reused
// across events; fields an event does not carry are reset before decoding.
type event struct {
	Type         string       `json:"type"`
	Index        int          `json:"index"`
	Message      *startMsg    `json:"message"`
	ContentBlock *startBlock  `json:"content_block"`
	Delta        delta        `json:"delta"`
	Usage        *usage       `json:"usage"`
	Error        *apiError    `json:"error"`
	StopDetails  *stopDetails `json:"stop_details"`
}

type startMsg struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Usage usage  `json:"usage"`
}

type startBlock struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Text string `json:"text"`
	Data string `json:"data"`
}

type delta struct {
	Type        string       `json:"type"`
	Text        string       `json:"text"`
	PartialJSON string       `json:"partial_json"`
	Thinking    string       `json:"thinking"`
	Signature   string       `json:"signature"`
	StopReason  string       `json:"stop_reason"`
	StopDetails *stopDetails `json:"stop_details"`
}

type stopDetails struct {
	Explanation string `json:"explanation"`
}

type usage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
}

// blockKind says what a content block index carries.
type blockKind uint8

const (
	blockOther blockKind = iota
	blockToolUse
	blockOutput // the synthesised structured-output tool
)

type blockState struct {
	kind blockKind
	id   string
	// open is set by the block's content_block_start.
	open bool
}

type decoder struct {
	ev  event
	buf []byte // scratch for decoding delta strings
	// slowOnly turns the fast path off, so tests can check both paths
	// translate every recording alike.
	slowOnly   bool
	outputTool string
	blocks     []blockState
	usage      helikon.Usage
	stop       string
	explain    string
	// vals is scratch for [jsonscan.Object].
	vals [8][]byte
}

// handle translates one stream event; false means the stream is over for
// the caller.
func (d *decoder) handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	if !d.slowOnly {
		if handled, more := d.fast(data, yield); handled {
			return more
		}
	}
	e := &d.ev
	*e = event{}
	if err := json.Unmarshal(data, e); err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	more, done := d.event(e, yield)
	return more && !done
}

func (d *decoder) event(e *event, yield func(helikon.ModelEvent, error) bool) (more, done bool) {
	switch e.Type {
	case "message_start":
		if m := e.Message; m != nil {
			d.addUsage(&m.Usage)
			return yield(helikon.ResponseInfo{ID: m.ID, Model: m.Model}, nil), false
		}
	case "content_block_start":
		return d.blockStart(e, yield), false
	case "content_block_delta":
		return d.blockDelta(e, yield), false
	case "message_delta":
		if e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
		}
		if sd := e.Delta.StopDetails; sd != nil {
			d.explain = sd.Explanation
		}
		if e.Usage != nil {
			d.addUsage(e.Usage)
		}
	case "message_stop":
		d.finish(yield)
		return false, true
	case "error":
		yield(nil, classify(helikon.ModelOther, e.Error))
		return false, true
	}
	return true, false
}

// block returns the state of content block i, which the caller has checked
// with [httpx.CheckIndex].
func (d *decoder) block(i int) *blockState {
	for len(d.blocks) <= i {
		d.blocks = append(d.blocks, blockState{})
	}
	return &d.blocks[i]
}

func (d *decoder) blockStart(e *event, yield func(helikon.ModelEvent, error) bool) bool {
	cb := e.ContentBlock
	if cb == nil {
		// A start of nothing: what the block's deltas belong to is unknown.
		yield(nil, httpx.Malformed(providerName, fmt.Errorf("content_block_start for content block %d without its content_block", e.Index)))
		return false
	}
	if err := httpx.CheckIndex(providerName, "content block", e.Index); err != nil {
		yield(nil, err)
		return false
	}
	b := d.block(e.Index)
	b.open = true
	switch cb.Type {
	case "tool_use":
		if d.outputTool != "" && cb.Name == d.outputTool {
			b.kind = blockOutput
			return true
		}
		b.kind, b.id = blockToolUse, cb.ID
		return yield(helikon.ToolCallDelta{CallID: cb.ID, Name: cb.Name}, nil)
	case "redacted_thinking":
		return yield(helikon.ReasoningDelta{Data: cb.Data}, nil)
	case "text":
		if cb.Text != "" {
			return yield(helikon.TokenDelta{Text: cb.Text}, nil)
		}
	}
	return true
}

func (d *decoder) blockDelta(e *event, yield func(helikon.ModelEvent, error) bool) bool {
	dl := &e.Delta
	switch dl.Type {
	case "text_delta":
		if dl.Text == "" {
			return true
		}
		return yield(helikon.TokenDelta{Text: dl.Text}, nil)
	case "input_json_delta":
		if dl.PartialJSON == "" {
			return true
		}
		if err := httpx.CheckIndex(providerName, "content block", e.Index); err != nil {
			yield(nil, err)
			return false
		}
		return d.toolInput(e.Index, dl.PartialJSON, yield)
	case "thinking_delta":
		if dl.Thinking != "" {
			return yield(helikon.ReasoningDelta{Text: dl.Thinking}, nil)
		}
	case "signature_delta":
		return yield(helikon.ReasoningDelta{Signature: dl.Signature}, nil)
	}
	return true
}

// toolInput routes an input_json_delta of content block i (checked with
// [httpx.CheckIndex]): a call's arguments, the structured answer's text,
// or a server tool's input, which is not the caller's to run. Input for a
// block no content_block_start opened belongs to nothing: a malformed
// event, as arguments for an unknown item are in the Responses API.
func (d *decoder) toolInput(i int, in string, yield func(helikon.ModelEvent, error) bool) bool {
	switch b := d.block(i); {
	case b.kind == blockOutput:
		return yield(helikon.TokenDelta{Text: in}, nil)
	case b.kind == blockToolUse:
		return yield(helikon.ToolCallDelta{CallID: b.id, ArgsDelta: in}, nil)
	case !b.open:
		yield(nil, httpx.Malformed(providerName, fmt.Errorf("input_json_delta for content block %d, which no content_block_start opened", i)))
		return false
	}
	return true
}

// addUsage takes the counts an event reports; message_delta's counts are
// cumulative, so a later value replaces an earlier one.
func (d *decoder) addUsage(u *usage) {
	set := func(dst *int64, src *int64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&d.usage.InputTokens, u.InputTokens)
	set(&d.usage.OutputTokens, u.OutputTokens)
	set(&d.usage.CachedInputTokens, u.CacheReadInputTokens)
	set(&d.usage.CacheWriteTokens, u.CacheCreationInputTokens)
}

func (d *decoder) finish(yield func(helikon.ModelEvent, error) bool) {
	// Anthropic's input_tokens excludes the cached prefix; helikon's
	// InputTokens counts every input token, as OpenAI and Gemini do, so
	// usage sums and price tables agree across providers.
	u := d.usage
	u.InputTokens += u.CachedInputTokens + u.CacheWriteTokens
	if !yield(u, nil) {
		return
	}
	var reason helikon.FinishReason
	switch d.stop {
	case "end_turn", "stop_sequence":
		reason = helikon.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		reason = helikon.FinishLength
	case "tool_use":
		reason = helikon.FinishToolCalls
		if d.onlyOutput() {
			reason = helikon.FinishStop
		}
	case "refusal":
		msg := d.explain
		if msg == "" {
			msg = "the model declined to answer (stop_reason refusal)"
		}
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName, Message: msg})
		return
	default:
		reason = helikon.FinishOther
	}
	yield(helikon.Finish{Reason: reason}, nil)
}

// onlyOutput reports whether the only tool the model called is the
// structured-output one, which makes the turn a final answer.
func (d *decoder) onlyOutput() bool {
	out := false
	for _, b := range d.blocks {
		switch b.kind {
		case blockToolUse:
			return false
		case blockOutput:
			out = true
		}
	}
	return out
}

// The members of an event and of its delta that [event] decodes; the fast
// path reads them all so it can tell when an event holds anything the
// general path would read differently.
var (
	eventKeys = jsonscan.MustKeys("type", "index", "delta", "message", "content_block", "usage", "error", "stop_details")
	deltaKeys = jsonscan.MustKeys("type", "text", "partial_json", "thinking", "signature", "stop_reason", "stop_details")
)

// fast handles the content_block_delta events that make up nearly all of a
// stream without encoding/json. handled is false for anything it does not
// recognise, which then takes the general path.
func (d *decoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	v := d.vals[:]
	if !jsonscan.Object(data, eventKeys, v) || string(v[0]) != `"content_block_delta"` {
		return false, true
	}
	for _, other := range v[3:eventKeys.Len()] {
		if other != nil {
			return false, true
		}
	}
	idx, ok := jsonscan.Int(v[1])
	if !ok || httpx.CheckIndex(providerName, "content block", idx) != nil {
		return false, true // the general path reports a bad index
	}
	if !jsonscan.Nested(v[2], deltaKeys, v) {
		return false, true
	}
	var field int
	switch string(v[0]) {
	case `"text_delta"`:
		field = 1
	case `"input_json_delta"`:
		field = 2
	case `"thinking_delta"`:
		field = 3
	default:
		return false, true
	}
	for i, other := range v[1:deltaKeys.Len()] {
		if other != nil && i+1 != field {
			return false, true
		}
	}
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[field]); !ok {
		return false, true
	}
	if len(d.buf) == 0 {
		return true, true
	}
	switch field {
	case 1:
		return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
	case 3:
		return true, yield(helikon.ReasoningDelta{Text: string(d.buf)}, nil)
	}
	return true, d.toolInput(idx, string(d.buf), yield)
}
