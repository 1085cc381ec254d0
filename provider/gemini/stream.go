package gemini

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsonscan"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// Thought signatures travel as [helikon.ReasoningDelta] values whose ID
// says which part they belong to, so the next request can put each back on
// its part: sigPrefix+sigCall+callID for a function call, sigPrefix+sigText
// for the answer text, sigPrefix+sigThought for a thought summary.
const (
	sigPrefix  = "gemini:"
	sigCall    = "call:"
	sigText    = "text"
	sigThought = "thought"
)

// chunk is one GenerateContentResponse of the stream. It is reused across
// chunks; fields a chunk does not carry are reset before decoding.
type chunk struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	ResponseID     string          `json:"responseId"`
	Error          *apiError       `json:"error"`
}

type candidate struct {
	Content       *struct{ Parts []respPartIn } `json:"content"`
	FinishReason  string                        `json:"finishReason"`
	FinishMessage string                        `json:"finishMessage"`
	Index         int                           `json:"index"`
}

// respPartIn is a part of the model's answer.
type respPartIn struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	ThoughtSignature string          `json:"thoughtSignature"`
	FunctionCall     *functionCallIn `json:"functionCall"`
}

// functionCallIn is a functionCall part: a whole call, or a piece of one
// whose arguments stream (see streamed_call.go).
type functionCallIn struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	PartialArgs  []partialArg    `json:"partialArgs"`
	WillContinue bool            `json:"willContinue"`
}

type promptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

type usageMetadata struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
}

type decoder struct {
	ch      chunk
	buf     []byte
	started bool
	// slowOnly turns the fast path off, so tests can check both paths
	// translate every recording alike.
	slowOnly bool
	respID   string
	calls    int
	finish   string
	usage    *usageMetadata
	// lastUsage holds the raw usageMetadata of the latest chunk the fast
	// path took, decoded only if no later chunk reports usage.
	lastUsage []byte
	vals      [8][]byte
	doc       jsonscan.Document
	// streamed holds the calls whose arguments are still streaming.
	streamed streamedCalls
}

// handle translates one chunk; false means the stream is over for the
// caller.
func (d *decoder) handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool {
	if !d.slowOnly && d.started && d.finish == "" {
		if handled, more := d.fast(data, yield); handled {
			return more
		}
	}
	c := &d.ch
	*c = chunk{}
	if err := json.Unmarshal(data, c); err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	if c.Error != nil {
		yield(nil, classify(helikon.ModelOther, c.Error, ""))
		return false
	}
	if !d.started {
		d.started = true
		d.respID = c.ResponseID
		if c.ResponseID != "" || c.ModelVersion != "" {
			if !yield(helikon.ResponseInfo{ID: c.ResponseID, Model: c.ModelVersion}, nil) {
				return false
			}
		}
	}
	if c.UsageMetadata != nil {
		d.usage, d.lastUsage = c.UsageMetadata, d.lastUsage[:0]
	}
	if pf := c.PromptFeedback; pf != nil && pf.BlockReason != "" {
		msg := "the prompt was blocked (" + pf.BlockReason + ")"
		if pf.BlockReasonMessage != "" {
			msg += ": " + pf.BlockReasonMessage
		}
		yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName, Message: msg})
		return false
	}
	for i := range c.Candidates {
		cand := &c.Candidates[i]
		if cand.Index != 0 {
			continue // the adapter asks for one candidate
		}
		if cand.Content != nil {
			for j := range cand.Content.Parts {
				if !d.part(&cand.Content.Parts[j], yield) {
					return false
				}
			}
		}
		if cand.FinishReason != "" {
			d.finish = cand.FinishReason
			if refused(cand.FinishReason) {
				msg := "the answer was blocked (finishReason " + cand.FinishReason + ")"
				if cand.FinishMessage != "" {
					msg += ": " + cand.FinishMessage
				}
				yield(nil, &helikon.ModelError{Kind: helikon.ModelRefused, Provider: providerName, Message: msg})
				return false
			}
		}
	}
	return true
}

func (d *decoder) part(p *respPartIn, yield func(helikon.ModelEvent, error) bool) bool {
	switch {
	case p.FunctionCall != nil:
		return d.functionCall(p, yield)
	case p.Thought:
		if p.Text != nil && *p.Text != "" {
			if !yield(helikon.ReasoningDelta{Text: *p.Text, ID: sigPrefix + sigThought}, nil) {
				return false
			}
		}
		if p.ThoughtSignature != "" {
			return yield(helikon.ReasoningDelta{Signature: p.ThoughtSignature, ID: sigPrefix + sigThought}, nil)
		}
	default:
		if p.Text != nil && *p.Text != "" {
			if !yield(helikon.TokenDelta{Text: *p.Text}, nil) {
				return false
			}
		}
		if p.ThoughtSignature != "" {
			return yield(helikon.ReasoningDelta{Signature: p.ThoughtSignature, ID: sigPrefix + sigText}, nil)
		}
	}
	return true
}

// functionCall translates a functionCall part: a whole call, the start of
// one whose arguments stream, or a piece of such a call's arguments.
func (d *decoder) functionCall(p *respPartIn, yield func(helikon.ModelEvent, error) bool) bool {
	fc := p.FunctionCall
	if c, ok := d.streamed.find(fc.ID, fc.Name); ok && (fc.Name == "" || fc.ID != "" || !fc.hasArgs()) {
		// A piece of an open call: without a name, or naming it again
		// (with its id, or with nothing but more pieces).
		return d.signature(p, c.id, yield) && d.continueCall(c, fc, yield)
	}
	if fc.Name == "" {
		err := fmt.Errorf("%w: a functionCall part without a name continues no open call (%d open)", errStreamedArgs, len(d.streamed.open))
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	id := fc.ID
	if id == "" {
		// Stable for a given response: the same recording replayed
		// yields the same ids.
		id = "call_" + d.respID + "_" + strconv.Itoa(d.calls)
	}
	d.calls++
	if !d.signature(p, id, yield) {
		return false
	}
	if !fc.WillContinue && len(fc.PartialArgs) == 0 {
		args := string(fc.Args)
		if len(fc.Args) == 0 || string(fc.Args) == "null" {
			args = "{}"
		}
		return yield(helikon.ToolCallDelta{CallID: id, Name: fc.Name, ArgsDelta: args}, nil)
	}
	c, err := d.streamed.begin(id, fc.Name, fc.Args)
	if err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	if !yield(helikon.ToolCallDelta{CallID: id, Name: fc.Name}, nil) {
		return false
	}
	fc.Args = nil // merged by begin
	return d.continueCall(c, fc, yield)
}

// hasArgs reports whether the part carries arguments of a whole call.
func (fc *functionCallIn) hasArgs() bool {
	return len(fc.Args) > 0 && string(fc.Args) != "null" && string(fc.Args) != "{}"
}

// continueCall merges a part's arguments into the open call c and, when
// the part does not say more will follow, ends c and sends its arguments.
func (d *decoder) continueCall(c *streamedCall, fc *functionCallIn, yield func(helikon.ModelEvent, error) bool) bool {
	err := c.mergeArgs(fc.Args)
	for i := 0; err == nil && i < len(fc.PartialArgs); i++ {
		err = c.add(fc.PartialArgs[i])
	}
	if err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	if fc.WillContinue {
		return true
	}
	args, err := d.streamed.end(c)
	if err != nil {
		yield(nil, httpx.Malformed(providerName, err))
		return false
	}
	return yield(helikon.ToolCallDelta{CallID: c.id, ArgsDelta: args}, nil)
}

// signature sends a function-call part's thought signature, named for
// the call it goes back on.
func (d *decoder) signature(p *respPartIn, id string, yield func(helikon.ModelEvent, error) bool) bool {
	if p.ThoughtSignature == "" {
		return true
	}
	return yield(helikon.ReasoningDelta{Signature: p.ThoughtSignature, ID: sigPrefix + sigCall + id}, nil)
}

// refused reports the finish reasons that mean the answer was withheld.
func refused(reason string) bool {
	switch reason {
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return true
	}
	return false
}

// atEOF ends a stream the server closed: a whole response when a finish
// reason arrived, else a truncated one.
func (d *decoder) atEOF(yield func(helikon.ModelEvent, error) bool) bool {
	if d.finish == "" {
		return false
	}
	if n := len(d.streamed.open); n > 0 {
		err := fmt.Errorf("%w: the stream ended with %d call(s) still streaming arguments (%s first)", errStreamedArgs, n, d.streamed.open[0].id)
		yield(nil, httpx.Malformed(providerName, err))
		return true
	}
	if len(d.lastUsage) > 0 {
		var u usageMetadata
		if json.Unmarshal(d.lastUsage, &u) == nil {
			d.usage = &u
		}
	}
	if u := d.usage; u != nil {
		// promptTokenCount includes the cached prefix, as helikon's
		// InputTokens does; thoughts are output the caller pays for.
		if !yield(helikon.Usage{InputTokens: u.PromptTokenCount + u.ToolUsePromptTokenCount,
			OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, CachedInputTokens: u.CachedContentTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount}, nil) {
			return true
		}
	}
	reason := helikon.FinishOther
	switch d.finish {
	case "STOP":
		reason = helikon.FinishStop
		if d.calls > 0 {
			reason = helikon.FinishToolCalls
		}
	case "MAX_TOKENS":
		reason = helikon.FinishLength
	}
	yield(helikon.Finish{Reason: reason}, nil)
	return true
}

// The members the fast path reads; it hands any chunk holding something
// else the general path would act on to the general path.
var (
	chunkKeys     = jsonscan.MustKeys("candidates", "usageMetadata", "promptFeedback", "error")
	candidateKeys = jsonscan.MustKeys("content", "finishReason", "index")
	contentKeys   = jsonscan.MustKeys("parts")
	partKeys      = jsonscan.MustKeys("text", "thought", "thoughtSignature", "functionCall")
)

// usageKeys are the members of usageMetadata that [usageMetadata] decodes.
var usageKeys = jsonscan.MustKeys("promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount", "thoughtsTokenCount", "toolUsePromptTokenCount")

// plainUsage reports whether usage, which the fast path keeps raw and
// decodes only when the stream ends, is one the general path decodes
// without error: an object whose counts are null or non-negative integers
// (of up to 18 digits). Anything else takes the general path, which fails
// the stream where it must.
func (d *decoder) plainUsage(usage []byte) bool {
	v := d.vals[:]
	if !d.doc.Object(usage, usageKeys, v) {
		return false
	}
	for _, n := range v[:usageKeys.Len()] {
		if n == nil || jsonscan.IsNull(n) {
			continue
		}
		if _, ok := jsonscan.Int(n); !ok {
			return false
		}
	}
	return true
}

// fast handles the text chunks that make up nearly all of a stream without
// encoding/json: one candidate, one text part, nothing else to act on.
func (d *decoder) fast(data []byte, yield func(helikon.ModelEvent, error) bool) (handled, more bool) {
	doc, v := &d.doc, d.vals[:]
	if !doc.Reset(data) || !doc.Object(doc.Root(), chunkKeys, v) || v[0] == nil || v[2] != nil || v[3] != nil {
		return false, true
	}
	cands, usage := v[0], v[1]
	if jsonscan.IsNull(usage) {
		usage = nil // the general path keeps the count it had
	} else if !d.plainUsage(usage) {
		return false, true
	}
	cand, only := doc.FirstElem(cands)
	if !only || !doc.Object(cand, candidateKeys, v) || v[1] != nil || v[0] == nil {
		return false, true
	}
	if v[2] != nil && string(v[2]) != "0" {
		return false, true
	}
	if !doc.Object(v[0], contentKeys, v) || v[0] == nil {
		return false, true
	}
	p, only := doc.FirstElem(v[0])
	if !only || !doc.Object(p, partKeys, v) || v[0] == nil || v[1] != nil || v[2] != nil || v[3] != nil {
		return false, true
	}
	var ok bool
	if d.buf, ok = jsonscan.AppendString(d.buf[:0], v[0]); !ok {
		return false, true
	}
	if usage != nil {
		d.lastUsage = append(d.lastUsage[:0], usage...)
	}
	if len(d.buf) == 0 {
		return true, true
	}
	return true, yield(helikon.TokenDelta{Text: string(d.buf)}, nil)
}
