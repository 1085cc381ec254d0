package bedrock

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
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
	stop       types.StopReason
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

// handle translates one event the SDK decoded (the path for a
// [ConverseStreamer] that is not a bedrockruntime client).
func (d *decoder) handle(ev types.ConverseStreamOutput, yield func(helikon.ModelEvent, error) bool) bool {
	switch e := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok && e.Value.ContentBlockIndex != nil {
			return d.toolStart(*e.Value.ContentBlockIndex, deref(tu.Value.ToolUseId), deref(tu.Value.Name), yield)
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		switch dl := e.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			return d.text(dl.Value, yield)
		case *types.ContentBlockDeltaMemberToolUse:
			return d.toolInput(e.Value.ContentBlockIndex, deref(dl.Value.Input), yield)
		case *types.ContentBlockDeltaMemberReasoningContent:
			switch r := dl.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				return d.reasoning(helikon.ReasoningDelta{Text: r.Value}, yield)
			case *types.ReasoningContentBlockDeltaMemberSignature:
				return d.reasoning(helikon.ReasoningDelta{Signature: r.Value}, yield)
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				return d.reasoning(helikon.ReasoningDelta{Data: encodeRedacted(r.Value)}, yield)
			}
		}
	case *types.ConverseStreamOutputMemberMessageStop:
		d.stop, d.stopped = e.Value.StopReason, true
	case *types.ConverseStreamOutputMemberMetadata:
		if u := e.Value.Usage; u != nil {
			d.usage = &usage{deref32(u.InputTokens), deref32(u.OutputTokens), deref32(u.CacheReadInputTokens), deref32(u.CacheWriteInputTokens)}
		}
	}
	return true
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

// end closes a stream the SDK finished reading without an error.
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
	case types.StopReasonEndTurn, types.StopReasonStopSequence:
		reason = helikon.FinishStop
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		reason = helikon.FinishLength
	case types.StopReasonToolUse:
		reason = helikon.FinishToolCalls
		if d.onlyOutput() {
			reason = helikon.FinishStop
		}
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName,
			Message: "the answer was blocked (stopReason " + string(d.stop) + ")"})
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func deref32(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}
