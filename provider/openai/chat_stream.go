package openai

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"github.com/paigasus/helikon/provider/internal/jsonscan"
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
		Content   string          `json:"content"`
		Refusal   string          `json:"refusal"`
		ToolCalls []chatCallDelta `json:"tool_calls"`
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
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// chatHeader is read from the first chunk only, for ResponseInfo.
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
	started  bool
}

// handle translates one chunk; false means the stream is over for the
// caller.
func (d *chatDecoder) handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	if bytes.Equal(data, doneMarker) {
		d.finishStream(yield)
		return false
	}
	if !d.started {
		d.started = true
		var h chatHeader
		if json.Unmarshal(data, &h) == nil && h.ID != "" {
			if !yield(helikon.ResponseInfo{ID: h.ID, Model: h.Model}, nil) {
				return false
			}
		}
	}
	if !d.slowOnly {
		if handled, more := d.fast(data, yield); handled {
			return more
		}
	}
	return d.chunkEvents(data, yield)
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
		if ch.Delta.Content != "" && !yield(helikon.TokenDelta{Text: ch.Delta.Content}, nil) {
			return false
		}
		d.refusal = append(d.refusal, ch.Delta.Refusal...)
		for j := range ch.Delta.ToolCalls {
			tc := &ch.Delta.ToolCalls[j]
			if err := httpx.CheckIndex(providerName, "tool call", tc.Index); err != nil {
				yield(nil, err)
				return false
			}
			if !yield(d.callDelta(tc), nil) {
				return false
			}
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	if u := c.Usage; u != nil {
		d.usage = &helikon.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
			CachedInputTokens: u.PromptTokensDetails.CachedTokens, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
	}
	return true
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

// fast handles the chunks that carry one content or tool-argument delta and
// nothing else — nearly all of a stream — without encoding/json. Anything
// else (the first chunk of a call, finish, usage, refusals, errors) is
// reported unhandled and takes the general path.
func (d *chatDecoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	// plain stays true while the chunk holds nothing but a delta; a member
	// that needs the general path clears it and stops the scan.
	plain := true
	var choices []byte
	ok := jsonscan.Each(data, func(k, v []byte) bool {
		switch string(k) {
		case "choices":
			choices = v
		case "usage", "error":
			plain = jsonscan.IsNull(v)
		}
		return plain
	})
	choice, only := jsonscan.FirstElem(choices)
	if !ok || !plain || !only {
		return false, true
	}
	var delta []byte
	ok = jsonscan.Each(choice, func(k, v []byte) bool {
		switch string(k) {
		case "index":
			plain = string(v) == "0"
		case "finish_reason":
			plain = jsonscan.IsNull(v)
		case "delta":
			delta = v
		}
		return plain
	})
	if !ok || !plain {
		return false, true
	}
	var content, calls []byte
	ok = jsonscan.Each(delta, func(k, v []byte) bool {
		switch string(k) {
		case "content":
			content = v
		case "tool_calls":
			calls = v
		case "refusal":
			plain = jsonscan.IsNull(v) || string(v) == `""`
		}
		return plain
	})
	if !ok || !plain {
		return false, true
	}
	if !jsonscan.IsNull(calls) {
		call, only := jsonscan.FirstElem(calls)
		if !only || !jsonscan.IsNull(jsonscan.Field(call, "id")) {
			return false, true
		}
		idx, ok := jsonscan.Int(jsonscan.Field(call, "index"))
		if !ok || idx >= len(d.callIDs) || d.callIDs[idx] == "" {
			return false, true
		}
		fn := jsonscan.Field(call, "function")
		if !jsonscan.IsNull(jsonscan.Field(fn, "name")) {
			return false, true
		}
		if d.buf, ok = jsonscan.AppendString(d.buf[:0], jsonscan.Field(fn, "arguments")); !ok {
			return false, true
		}
		return true, yield(helikon.ToolCallDelta{CallID: d.callIDs[idx], ArgsDelta: string(d.buf)}, nil)
	}
	if jsonscan.IsNull(content) {
		return true, true
	}
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], content); !ok {
		return false, true
	}
	if len(d.buf) == 0 {
		return true, true
	}
	return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
}
