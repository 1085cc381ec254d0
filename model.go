package helikon

import (
	"cmp"
	"context"
	"iter"
	"math"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon/internal/tagged"
)

// Model is the one interface every LLM provider implements. Invoke streams
// the model's answer to req as the provider emits it, ending after a
// [Finish]; a failure, before or during streaming, is a non-nil error
// (usually a [*ModelError]) that ends the stream. Breaking out of the range
// must release every resource the call holds, and a cancelled ctx must end
// the stream promptly: a run waits at most [RunConfig].CancelGrace for it
// ([ModelCapabilities].HonoursCancellation). A panic while the stream is
// read fails the turn with a [*ModelError], not the process.
type Model interface {
	Invoke(ctx context.Context, req *ModelRequest) iter.Seq2[ModelEvent, error]
	Capabilities() ModelCapabilities
}

// ModelInfo is a model that names its provider and model id (for traces,
// prices and [ModelResponded]).
type ModelInfo interface {
	Provider() string
	ModelID() string
}

// DescribeModel returns the provider and model id of m, or "unknown" and ""
// when m does not implement [ModelInfo].
func DescribeModel(m Model) (provider, id string) {
	if mi, ok := m.(ModelInfo); ok {
		return mi.Provider(), mi.ModelID()
	}
	return "unknown", ""
}

// ModelRequest is what the agent loop sends to a [Model] for one turn.
// System messages may appear anywhere in Messages; adapters move them.
type ModelRequest struct {
	Messages []Item
	Tools    []ToolDef
	Settings ModelSettings
}

// ToolDef describes a tool to the model.
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the tool's arguments object.
	Parameters *jsonschema.Schema
}

// ModelSettings are the provider-tuning knobs of a request. Zero values mean
// "provider default". New fields may be added.
type ModelSettings struct {
	Temperature     *float64
	TopP            *float64
	MaxOutputTokens int
	ToolChoice      ToolChoice
	// ParallelToolCalls, when set, says whether the model may request
	// several tool calls in one turn.
	ParallelToolCalls *bool
	ResponseFormat    *ResponseFormat
	// PreviousResponseID threads OpenAI Responses' server-managed state.
	PreviousResponseID string
	ReasoningEffort    string // "minimal", "low", "medium" or "high"
}

// Merge returns s with every field that o sets taking o's value.
func (s ModelSettings) Merge(o ModelSettings) ModelSettings {
	s.Temperature = cmp.Or(o.Temperature, s.Temperature)
	s.TopP = cmp.Or(o.TopP, s.TopP)
	s.MaxOutputTokens = cmp.Or(o.MaxOutputTokens, s.MaxOutputTokens)
	if o.ToolChoice.Mode != "" {
		s.ToolChoice = o.ToolChoice
	}
	s.ParallelToolCalls = cmp.Or(o.ParallelToolCalls, s.ParallelToolCalls)
	s.ResponseFormat = cmp.Or(o.ResponseFormat, s.ResponseFormat)
	s.PreviousResponseID = cmp.Or(o.PreviousResponseID, s.PreviousResponseID)
	s.ReasoningEffort = cmp.Or(o.ReasoningEffort, s.ReasoningEffort)
	return s
}

// ToolChoiceMode says how the model may use tools.
type ToolChoiceMode string

// The tool-choice modes. The zero value leaves the choice to the provider.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceTool     ToolChoiceMode = "tool" // the tool named in ToolChoice.Name
)

// ToolChoice constrains tool use for a turn.
type ToolChoice struct {
	Mode ToolChoiceMode
	Name string // with ToolChoiceTool
}

// ForceTool returns a ToolChoice that makes the model call the named tool.
func ForceTool(name string) ToolChoice { return ToolChoice{Mode: ToolChoiceTool, Name: name} }

// ResponseFormatType selects the shape of the model's text answer.
type ResponseFormatType string

// The response formats.
const (
	FormatText       ResponseFormatType = "text"
	FormatJSONObject ResponseFormatType = "json_object"
	FormatJSONSchema ResponseFormatType = "json_schema"
)

// ResponseFormat asks the model for structured output.
type ResponseFormat struct {
	Type   ResponseFormatType
	Name   string
	Schema *jsonschema.Schema
	Strict bool
}

// ModelCapabilities are the flags a model instance reports about itself.
type ModelCapabilities struct {
	Streaming          bool
	Tools              bool
	ParallelToolCalls  bool
	StructuredOutput   bool
	ServerManagedState bool
	Reasoning          bool
	Vision             bool
	Audio              bool
	PromptCaching      bool
	// HonoursCancellation promises that the stream ends promptly once the
	// context given to Invoke is cancelled, as a provider's HTTP stream
	// does. Without it a cancellable run reads the stream on a worker
	// goroutine, to bound a model that blocks; with it, on its own, saving
	// that hand-off every turn, and a model breaking the promise holds the
	// run past [RunConfig].CancelGrace.
	HonoursCancellation bool
}

// ModelEvent is one element of a model's stream: [TokenDelta],
// [ReasoningDelta], [ToolCallDelta], [Usage], [ResponseInfo] or [Finish].
// New event types may be added; consumers should ignore ones they do not know.
type ModelEvent interface {
	isModelEvent()
}

// TokenDelta is a piece of assistant text. It is both a [ModelEvent] and an
// [Event]: the loop forwards the provider's value to the caller unchanged.
type TokenDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta is a piece of model reasoning. A delta carrying only a
// Signature or Data completes the current block (see [ReasoningBuilder]).
type ReasoningDelta struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`
}

// AppendTo adds the delta to a turn's reasoning parts: it extends the last
// part, or opens one when the last is complete (it has a Signature or
// Data) or belongs to another reasoning item (ID).
//
// Deprecated: each call copies the part it extends, so a turn of n deltas
// costs time and garbage quadratic in n. Use [ReasoningBuilder], which
// gathers the same parts in linear time.
func (e ReasoningDelta) AppendTo(parts []ReasoningPart) []ReasoningPart {
	n := len(parts)
	if n == 0 || parts[n-1].Signature != "" || parts[n-1].Data != "" || (e.ID != "" && parts[n-1].ID != e.ID) {
		return append(parts, ReasoningPart{Text: e.Text, Signature: e.Signature, Data: e.Data, ID: e.ID})
	}
	last := &parts[n-1]
	last.Text += e.Text
	last.Signature += e.Signature
	last.Data += e.Data
	return parts
}

// ToolCallDelta is a piece of a tool call. The first delta of a call carries
// its Name; every delta carries the CallID, so calls may interleave.
type ToolCallDelta struct {
	CallID    string `json:"call_id"`
	Name      string `json:"name,omitempty"`
	ArgsDelta string `json:"args_delta"`
}

// Usage counts tokens. As a [ModelEvent] it reports one turn; on results it
// sums every turn, handoff and sub-agent of a run. InputTokens counts every
// input token, CachedInputTokens and CacheWriteTokens included (the
// OpenTelemetry GenAI convention); adapters of APIs that report them apart
// add them in, so that [Prices] bill every token once.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	CacheWriteTokens  int64 `json:"cache_write_tokens,omitempty"` // written to a prompt cache
	ReasoningTokens   int64 `json:"reasoning_tokens,omitempty"`
	// Cost is what the tokens cost, from the run's price table ([Prices])
	// or from a provider that reports it.
	Cost float64 `json:"cost,omitempty"`
}

// Add returns u + o. Its counts saturate at the int64 bounds rather than
// wrap: a sum of huge counts that wrapped would read as a negative one,
// which a [Budget] would never find spent.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:       addTokens(u.InputTokens, o.InputTokens),
		OutputTokens:      addTokens(u.OutputTokens, o.OutputTokens),
		CachedInputTokens: addTokens(u.CachedInputTokens, o.CachedInputTokens),
		CacheWriteTokens:  addTokens(u.CacheWriteTokens, o.CacheWriteTokens),
		ReasoningTokens:   addTokens(u.ReasoningTokens, o.ReasoningTokens),
		Cost:              u.Cost + o.Cost,
	}
}

// Total returns input plus output tokens, saturating as Add does.
func (u Usage) Total() int64 { return addTokens(u.InputTokens, u.OutputTokens) }

// addTokens returns a + b, saturated at the int64 bounds.
func addTokens(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// reported reports whether u can be a model's account of a turn: no count
// below zero and a cost that is a number, finite and not below zero. A
// negative one would take from what the run's other turns spent.
func (u Usage) reported() bool {
	return u.InputTokens >= 0 && u.OutputTokens >= 0 && u.CachedInputTokens >= 0 &&
		u.CacheWriteTokens >= 0 && u.ReasoningTokens >= 0 &&
		u.Cost >= 0 && !math.IsInf(u.Cost, 1)
}

// ResponseInfo carries the provider's id for the response, which threads
// server-managed state (ModelSettings.PreviousResponseID).
type ResponseInfo struct {
	ID    string `json:"id"`
	Model string `json:"model,omitempty"`
}

// FinishReason says why a model stopped.
type FinishReason string

// The finish reasons.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
	FinishRefusal       FinishReason = "refusal"
	FinishOther         FinishReason = "other"
)

// Finish ends a model stream.
type Finish struct {
	Reason FinishReason `json:"reason"`
}

func (TokenDelta) isModelEvent()     {}
func (ReasoningDelta) isModelEvent() {}
func (ToolCallDelta) isModelEvent()  {}
func (Usage) isModelEvent()          {}
func (ResponseInfo) isModelEvent()   {}
func (Finish) isModelEvent()         {}

// MarshalJSON encodes the usage with "type": "usage".
func (u Usage) MarshalJSON() ([]byte, error) {
	type a Usage
	return tagged.Marshal("usage", a(u))
}

// MarshalJSON encodes the event with "type": "response_info".
func (e ResponseInfo) MarshalJSON() ([]byte, error) {
	type a ResponseInfo
	return tagged.Marshal("response_info", a(e))
}

// MarshalJSON encodes the event with "type": "finish".
func (e Finish) MarshalJSON() ([]byte, error) {
	type a Finish
	return tagged.Marshal("finish", a(e))
}

var modelEventUnion = tagged.NewUnion("model event", func() map[string]func([]byte) (ModelEvent, error) {
	return map[string]func([]byte) (ModelEvent, error){
		"token_delta":     tagged.DecodeAs[TokenDelta, ModelEvent],
		"reasoning_delta": tagged.DecodeAs[ReasoningDelta, ModelEvent],
		"tool_call_delta": tagged.DecodeAs[ToolCallDelta, ModelEvent],
		"usage":           tagged.DecodeAs[Usage, ModelEvent],
		"response_info":   tagged.DecodeAs[ResponseInfo, ModelEvent],
		"finish":          tagged.DecodeAs[Finish, ModelEvent],
	}
})

// UnmarshalModelEvent decodes one model event by its "type" member.
func UnmarshalModelEvent(data []byte) (ModelEvent, error) { return modelEventUnion.Decode(data) }
