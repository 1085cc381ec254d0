package bedrock

import (
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// errTruncated is the cause of a stream that ended before messageStop.
var errTruncated = errors.New("event stream ended before messageStop")

// errNoMetadata is the cause of a stream that ended after messageStop but
// without the metadata event, which Bedrock always sends and which alone
// carries the token usage: the stream was cut before its last event, and
// finishing it would report a turn that cost nothing.
var errNoMetadata = errors.New("event stream ended without the metadata event's token usage")

type blockKind uint8

const (
	blockOther blockKind = iota
	blockToolUse
	blockOutput // the hidden structured-output tool
)

type block struct {
	kind blockKind
	id   string
}

type decoder struct {
	outputTool string
	blocks     map[int32]block
	stop       string // messageStop's stopReason
	stopped    bool
	usage      *usage
	// buf and vals are scratch for the wire path's fast reads.
	buf  []byte
	vals [4][]byte
}

// usage is a metadata event's token counts.
type usage struct {
	InputTokens           int32 `json:"inputTokens"`
	OutputTokens          int32 `json:"outputTokens"`
	CacheReadInputTokens  int32 `json:"cacheReadInputTokens"`
	CacheWriteInputTokens int32 `json:"cacheWriteInputTokens"`
}

// toolStart opens a tool-use content block.
func (d *decoder) toolStart(index int32, id, name string, yield func(helikon.ModelEvent, error) bool) bool {
	if d.blocks == nil {
		d.blocks = map[int32]block{}
	}
	if d.outputTool != "" && name == d.outputTool {
		d.blocks[index] = block{kind: blockOutput}
		return true
	}
	d.blocks[index] = block{kind: blockToolUse, id: id}
	return yield(helikon.ToolCallDelta{CallID: id, Name: name}, nil)
}

func (d *decoder) text(s string, yield func(helikon.ModelEvent, error) bool) bool {
	if s == "" {
		return true
	}
	return yield(helikon.TokenDelta{Text: s}, nil)
}

// toolInput is an input delta of the tool-use block index: the answer
// text when that block is the hidden structured-output tool. Input for a
// block no contentBlockStart opened as a tool use (or for no block) has no
// call to belong to: the stream contradicts itself and ends with a
// Transport "malformed event" error, rather than lose the arguments and
// finish with tool_use and no call.
func (d *decoder) toolInput(index *int32, in string, yield func(helikon.ModelEvent, error) bool) bool {
	var b block
	if index != nil {
		b = d.blocks[*index]
	}
	if b.kind == blockOther {
		yield(nil, httpx.Malformed(providerName, unopenedBlock(index)))
		return false
	}
	switch {
	case in == "":
		return true
	case b.kind == blockOutput:
		return yield(helikon.TokenDelta{Text: in}, nil)
	}
	return yield(helikon.ToolCallDelta{CallID: b.id, ArgsDelta: in}, nil)
}

// unopenedBlock describes tool input that no tool-use block was opened for.
func unopenedBlock(index *int32) error {
	if index == nil {
		return errors.New("tool input without a contentBlockIndex")
	}
	return fmt.Errorf("tool input for content block %d, which no contentBlockStart opened as a tool use", *index)
}

func (d *decoder) reasoning(r helikon.ReasoningDelta, yield func(helikon.ModelEvent, error) bool) bool {
	if r == (helikon.ReasoningDelta{}) {
		return true
	}
	return yield(r, nil)
}

// end closes a stream read to its end without an error.
func (d *decoder) end(yield func(helikon.ModelEvent, error) bool) {
	switch {
	case !d.stopped:
		yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: providerName, Err: errTruncated})
		return
	case d.usage == nil:
		yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: providerName, Err: errNoMetadata})
		return
	}
	// Bedrock's inputTokens excludes cache reads and writes; helikon's
	// InputTokens counts every input token.
	u := d.usage
	read, write := int64(u.CacheReadInputTokens), int64(u.CacheWriteInputTokens)
	if !yield(helikon.Usage{InputTokens: int64(u.InputTokens) + read + write, OutputTokens: int64(u.OutputTokens),
		CachedInputTokens: read, CacheWriteTokens: write}, nil) {
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
	case "guardrail_intervened", "content_filtered":
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName,
			Message: "the answer was blocked (stopReason " + d.stop + ")"})
		return
	default:
		reason = helikon.FinishOther
	}
	yield(helikon.Finish{Reason: reason}, nil)
}

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
