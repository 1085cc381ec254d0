package openai

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsonscan"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// chatChunk is one streamed chunk (components/schemas/
// CreateChatCompletionStreamResponse). Only what the adapter reads is
// declared: the decoder skips the rest without allocating.
type chatChunk struct {
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	Error   *apiError    `json:"error"`
}

type chatChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content string `json:"content"`
		Refusal string `json:"refusal"`
		// Reasoning text, which OpenAI's own API does not stream here:
		// DeepSeek, xAI and older vLLM send reasoning_content; OpenRouter,
		// Groq, Ollama and newer vLLM send reasoning.
		ReasoningContent string          `json:"reasoning_content"`
		Reasoning        string          `json:"reasoning"`
		ToolCalls        []chatCallDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type chatCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// chatHeader is read for ResponseInfo from the first chunks until one
// names the response: Azure's first chunk carries only prompt-filter
// results, with an empty id and model.
type chatHeader struct {
	ID    string `json:"id"`
	Model string `json:"model"`
}

var doneMarker = []byte("[DONE]")

// chatDecoder turns a Chat Completions stream into model events. Tool-call
// deltas name their call by index after the first; the decoder maps indexes
// back to call ids so every ToolCallDelta carries its CallID.
type chatDecoder struct {
	chunk chatChunk
	buf   []byte // scratch for decoding delta strings
	// slowOnly turns the fast path off, so tests can check both paths
	// translate every recording alike.
	slowOnly bool
	callIDs  []string
	finish   string
	refusal  []byte
	usage    *helikon.Usage
	// named is set once ResponseInfo has been yielded (or can no longer
	// come first, because content has).
	named bool
	// doc indexes a chunk in its one validating pass, so the fast path's
	// reads of nested members scan nothing again.
	doc jsonscan.Document
	// tmpl is the last chunk the fast path read, with the string it read
	// as a slot: a chunk that repeats it but for that string (and strings
	// nothing reads) means the same but for the new text. tmplKind says
	// what the string was (0 for no template), tmplCall the call's index.
	tmpl     jsonscan.Template
	tmplKind tmplKind
	tmplCall int
}

// tmplKind is what the slot of a [chatDecoder]'s template holds.
type tmplKind uint8

const (
	noTmpl tmplKind = iota
	contentTmpl
	reasoningTmpl
	argsTmpl
)

// handle translates one chunk; false means the stream is over for the
// caller.
func (d *chatDecoder) handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	if bytes.Equal(data, doneMarker) {
		d.finishStream(yield)
		return false
	}
	if !d.named {
		var h chatHeader
		if json.Unmarshal(data, &h) == nil && h.ID != "" {
			d.named = true
			if !yield(helikon.ResponseInfo{ID: h.ID, Model: h.Model}, nil) {
				return false
			}
		}
	}
	if !d.slowOnly {
		if handled, more := d.repeat(data, yield); handled {
			return more
		}
		if handled, more := d.fast(data, yield); handled {
			return more
		}
	}
	return d.chunkEvents(data, yield)
}

// repeat handles a chunk that repeats the last one the fast path read but
// for the string it read (see [jsonscan.Template]): the same kind of delta
// with the new text. Anything else is reported unhandled.
func (d *chatDecoder) repeat(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	if d.tmplKind == noTmpl {
		return false, true
	}
	var out [1][]byte
	if !d.tmpl.Match(data, out[:]) {
		return false, true
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], out[0]); !ok {
		return false, true
	}
	switch {
	case d.tmplKind == argsTmpl:
		return true, d.emit(helikon.ToolCallDelta{CallID: d.callIDs[d.tmplCall], ArgsDelta: string(d.buf)}, yield)
	case len(d.buf) == 0:
		return true, true
	case d.tmplKind == contentTmpl:
		return true, d.emit(helikon.TokenDelta{Text: string(d.buf)}, yield)
	}
	return true, d.emit(helikon.ReasoningDelta{Text: string(d.buf)}, yield)
}

// remember makes the chunk the fast path is reading, whose one delta
// string is s, the template of the next ones.
func (d *chatDecoder) remember(kind tmplKind, s []byte) {
	d.tmplKind = noTmpl
	if d.tmpl.Set(&d.doc, chatTopKeys, s) {
		d.tmplKind = kind
	}
}

// chunkEvents decodes one chunk and yields its events; false means stop.
func (d *chatDecoder) chunkEvents(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	c := &d.chunk
	// encoding/json decodes into the reused elements without zeroing them,
	// so clear them first or a delta would inherit the previous one's text.
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chatChunk{Choices: choices[:0]}
	if err := json.Unmarshal(data, c); err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	if c.Error != nil {
		yield(nil, classify(helikon.ModelOther, c.Error))
		return false
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // n > 1 is not requested; ignore stray choices
		}
		// A server in transition (vLLM renamed reasoning_content to
		// reasoning) may send the same text in both; take it once.
		r := ch.Delta.ReasoningContent
		if r == "" {
			r = ch.Delta.Reasoning
		}
		if r != "" && !d.emit(helikon.ReasoningDelta{Text: r}, yield) {
			return false
		}
		if ch.Delta.Content != "" && !d.emit(helikon.TokenDelta{Text: ch.Delta.Content}, yield) {
			return false
		}
		d.refusal = append(d.refusal, ch.Delta.Refusal...)
		for j := range ch.Delta.ToolCalls {
			tc := &ch.Delta.ToolCalls[j]
			if err := httpx.CheckIndex(providerName, "tool call", tc.Index); err != nil {
				yield(nil, err)
				return false
			}
			if !d.emit(d.callDelta(tc), yield) {
				return false
			}
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	if u := c.Usage; u != nil {
		d.usage = chatUsageOf(u)
	}
	return true
}

// emit yields a content event. Once content has gone out, a ResponseInfo
// could no longer come first, so a server that never names its response
// gets none.
func (d *chatDecoder) emit(ev helikon.ModelEvent, yield func(helikon.ModelEvent, error) bool) bool {
	d.named = true
	return yield(ev, nil)
}

// chatUsageOf maps a usage block to helikon's counts, where OutputTokens
// includes reasoning tokens. OpenAI, DeepSeek, Groq and Azure count
// reasoning inside completion_tokens; xAI counts it beside them, which its
// total_tokens shows (prompt + completion + reasoning). Adding reasoning to
// the output only in that case counts every token once on both kinds of
// server.
func chatUsageOf(u *chatUsage) *helikon.Usage {
	r := u.CompletionTokensDetails.ReasoningTokens
	out := u.CompletionTokens
	if r > 0 && u.TotalTokens == u.PromptTokens+u.CompletionTokens+r {
		out += r
	}
	return &helikon.Usage{InputTokens: u.PromptTokens, OutputTokens: out,
		CachedInputTokens: u.PromptTokensDetails.CachedTokens, ReasoningTokens: r}
}

// callDelta maps tc to its call id; the caller has checked tc.Index with
// [httpx.CheckIndex].
func (d *chatDecoder) callDelta(tc *chatCallDelta) helikon.ToolCallDelta {
	for len(d.callIDs) <= tc.Index {
		d.callIDs = append(d.callIDs, "")
	}
	if tc.ID != "" {
		d.callIDs[tc.Index] = tc.ID
	} else if d.callIDs[tc.Index] == "" {
		// Some compatible servers never send an id; invent a stable one.
		d.callIDs[tc.Index] = "call_" + strconv.Itoa(tc.Index)
	}
	return helikon.ToolCallDelta{CallID: d.callIDs[tc.Index], Name: tc.Function.Name, ArgsDelta: tc.Function.Arguments}
}

// finishStream yields the settled usage and finish reason after [DONE]. A
// refusal is reported as a Refused error carrying the model's explanation.
func (d *chatDecoder) finishStream(yield func(helikon.ModelEvent, error) bool) {
	if d.usage != nil && !yield(*d.usage, nil) {
		return
	}
	if len(d.refusal) > 0 {
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName, Message: string(d.refusal)})
		return
	}
	if d.finish == "" {
		yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: providerName, Err: httpx.ErrStreamTruncated})
		return
	}
	yield(helikon.Finish{Reason: finishReason(d.finish)}, nil)
}

func finishReason(r string) helikon.FinishReason {
	switch r {
	case "stop":
		return helikon.FinishStop
	case "length", "max_output_tokens":
		return helikon.FinishLength
	case "tool_calls", "function_call":
		return helikon.FinishToolCalls
	case "content_filter":
		return helikon.FinishContentFilter
	}
	return helikon.FinishOther
}

// The members each level of a chunk can have that [chatChunk] decodes:
// the fast path reads them all, so it can tell when a chunk holds anything
// the general path would read differently.
var (
	chatTopKeys    = jsonscan.MustKeys("choices", "usage", "error")
	chatChoiceKeys = jsonscan.MustKeys("index", "delta", "finish_reason")
	chatDeltaKeys  = jsonscan.MustKeys("content", "reasoning_content", "reasoning", "tool_calls", "refusal")
	chatCallKeys   = jsonscan.MustKeys("index", "id", "function")
	chatFnKeys     = jsonscan.MustKeys("name", "arguments")
)

// fast handles the chunks that carry one content, reasoning or
// tool-argument delta and nothing else — nearly all of a stream — without
// encoding/json. Anything else (the first chunk of a call, finish, usage,
// refusals, errors, anything unusual) is reported unhandled and takes the
// general path, which decides alike.
func (d *chatDecoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	// The members read, on the stack: storing them costs no write barrier.
	var vals [5][]byte
	doc, v := &d.doc, vals[:]
	if !doc.Reset(data) || !doc.Object(doc.Root(), chatTopKeys, v) || !jsonscan.IsNull(v[1]) || !jsonscan.IsNull(v[2]) {
		return false, true
	}
	choice, only := doc.FirstElem(v[0])
	if !only || !doc.Object(choice, chatChoiceKeys, v) ||
		string(v[0]) != "0" || !jsonscan.IsNull(v[2]) || jsonscan.IsNull(v[1]) {
		return false, true
	}
	if !doc.Object(v[1], chatDeltaKeys, v) || !(jsonscan.IsNull(v[4]) || string(v[4]) == `""`) {
		return false, true
	}
	// Exactly one of content, reasoning_content, reasoning and tool_calls.
	which := -1
	for i := range 4 {
		if !jsonscan.IsNull(v[i]) {
			if which >= 0 {
				return false, true
			}
			which = i
		}
	}
	switch which {
	case -1:
		return true, true
	case 3:
		return d.fastCall(v[3], v, yield)
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[which]); !ok {
		return false, true
	}
	d.remember(contentTmpl+tmplKind(min(which, 1)), v[which])
	if len(d.buf) == 0 {
		return true, true
	}
	if which == 0 {
		return true, d.emit(helikon.TokenDelta{Text: string(d.buf)}, yield)
	}
	return true, d.emit(helikon.ReasoningDelta{Text: string(d.buf)}, yield)
}

// fastCall handles a tool_calls array holding one argument delta of a call
// already started; v is scratch for the members read.
func (d *chatDecoder) fastCall(calls []byte, v [][]byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	doc := &d.doc
	call, only := doc.FirstElem(calls)
	if !only || !doc.Object(call, chatCallKeys, v) || !jsonscan.IsNull(v[1]) {
		return false, true
	}
	idx, ok := jsonscan.Int(v[0])
	if !ok || idx >= len(d.callIDs) || d.callIDs[idx] == "" {
		return false, true
	}
	if !doc.Object(v[2], chatFnKeys, v) || !jsonscan.IsNull(v[0]) {
		return false, true
	}
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[1]); !ok {
		return false, true
	}
	d.remember(argsTmpl, v[1])
	d.tmplCall = idx
	return true, d.emit(helikon.ToolCallDelta{CallID: d.callIDs[idx], ArgsDelta: string(d.buf)}, yield)
}
