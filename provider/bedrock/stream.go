package bedrock

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/paigasus/helikon"
)

// errTruncated is the cause of a stream that ended before messageStop.
var errTruncated = errors.New("event stream ended before messageStop")

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
	usage      *types.TokenUsage
}

func (d *decoder) handle(ev types.ConverseStreamOutput, yield func(helikon.ModelEvent, error) bool) bool {
	switch e := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse)
		if !ok || e.Value.ContentBlockIndex == nil {
			return true
		}
		if d.blocks == nil {
			d.blocks = map[int32]block{}
		}
		name, id := deref(tu.Value.Name), deref(tu.Value.ToolUseId)
		if d.outputTool != "" && name == d.outputTool {
			d.blocks[*e.Value.ContentBlockIndex] = block{kind: blockOutput}
			return true
		}
		d.blocks[*e.Value.ContentBlockIndex] = block{kind: blockToolUse, id: id}
		return yield(helikon.ToolCallDelta{CallID: id, Name: name}, nil)
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		switch dl := e.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			if dl.Value == "" {
				return true
			}
			return yield(helikon.TokenDelta{Text: dl.Value}, nil)
		case *types.ContentBlockDeltaMemberToolUse:
			in := deref(dl.Value.Input)
			if in == "" || e.Value.ContentBlockIndex == nil {
				return true
			}
			switch b := d.blocks[*e.Value.ContentBlockIndex]; b.kind {
			case blockOutput:
				return yield(helikon.TokenDelta{Text: in}, nil)
			case blockToolUse:
				return yield(helikon.ToolCallDelta{CallID: b.id, ArgsDelta: in}, nil)
			}
		case *types.ContentBlockDeltaMemberReasoningContent:
			switch r := dl.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				if r.Value != "" {
					return yield(helikon.ReasoningDelta{Text: r.Value}, nil)
				}
			case *types.ReasoningContentBlockDeltaMemberSignature:
				return yield(helikon.ReasoningDelta{Signature: r.Value}, nil)
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				return yield(helikon.ReasoningDelta{Data: encodeRedacted(r.Value)}, nil)
			}
		}
	case *types.ConverseStreamOutputMemberMessageStop:
		d.stop, d.stopped = e.Value.StopReason, true
	case *types.ConverseStreamOutputMemberMetadata:
		d.usage = e.Value.Usage
	}
	return true
}

// end closes a stream the SDK finished reading without an error.
func (d *decoder) end(yield func(helikon.ModelEvent, error) bool) {
	if !d.stopped {
		yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: providerName, Err: errTruncated})
		return
	}
	if u := d.usage; u != nil {
		// Bedrock's inputTokens excludes cache reads and writes; helikon's
		// InputTokens counts every input token.
		read, write := int64(deref32(u.CacheReadInputTokens)), int64(deref32(u.CacheWriteInputTokens))
		if !yield(helikon.Usage{InputTokens: int64(deref32(u.InputTokens)) + read + write, OutputTokens: int64(deref32(u.OutputTokens)),
			CachedInputTokens: read, CacheWriteTokens: write}, nil) {
			return
		}
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
