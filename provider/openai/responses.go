package openai

import (
	"context"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// ResponsesModel is a [helikon.Model] on the Responses API (POST /responses,
// streamed): reasoning summaries stream as [helikon.ReasoningDelta], and
// ModelSettings.PreviousResponseID threads server-managed conversation
// state. A ResponsesModel is safe for concurrent use.
type ResponsesModel struct {
	id  string
	cfg config
	url string
}

// Responses returns a model on the Responses API, configured like [Chat].
func Responses(model string, opts ...Option) (*ResponsesModel, error) {
	cfg, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	return &ResponsesModel{id: model, cfg: cfg, url: cfg.baseURL + "/responses"}, nil
}

// Provider returns "openai".
func (m *ResponsesModel) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *ResponsesModel) ModelID() string { return m.id }

// Capabilities reports what the Responses API supports, including
// server-managed state through previous_response_id.
func (m *ResponsesModel) Capabilities() helikon.ModelCapabilities {
	if m.cfg.caps != nil {
		return *m.cfg.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: true,
		StructuredOutput: true, ServerManagedState: true, Reasoning: true, Vision: true, PromptCaching: true,
		HonoursCancellation: true}
}

// Invoke streams one Responses turn.
func (m *ResponsesModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		r, err := m.responsesRequest(req)
		body, err := httpx.Encode(providerName, r, err)
		if err != nil {
			yield(nil, err)
			return
		}
		var d responsesDecoder
		httpx.Stream(ctx, m.cfg.endpoint(m.url), body, yield, func(data []byte) bool { return d.handle(data, yield) })
	}
}
