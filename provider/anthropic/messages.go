package anthropic

import (
	"context"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// MessagesModel is a [helikon.Model] on the Messages API (POST /v1/messages,
// streamed). It is safe for concurrent use.
type MessagesModel struct {
	id  string
	cfg config
	url string
}

// Messages returns a model on the Messages API. The API key defaults to
// ANTHROPIC_API_KEY; it fails with [ErrNoAPIKey] when there is none and the
// base URL is Anthropic's own (a proxy given with [WithBaseURL] may need no
// key).
func Messages(model string, opts ...Option) (*MessagesModel, error) {
	cfg, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	return &MessagesModel{id: model, cfg: cfg, url: cfg.baseURL + "/v1/messages"}, nil
}

// Provider returns "anthropic".
func (m *MessagesModel) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *MessagesModel) ModelID() string { return m.id }

// Capabilities reports what the Messages API supports.
func (m *MessagesModel) Capabilities() helikon.ModelCapabilities {
	if m.cfg.caps != nil {
		return *m.cfg.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: true,
		StructuredOutput: true, Reasoning: m.cfg.thinking > 0, Vision: true, PromptCaching: true,
		HonoursCancellation: true}
}

// Invoke streams one Messages turn.
func (m *MessagesModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		r, err := m.messagesRequest(req)
		body, err := httpx.Encode(providerName, r, err)
		if err != nil {
			yield(nil, err)
			return
		}
		d := decoder{outputTool: r.outputTool}
		e := httpx.Endpoint{Provider: providerName, Client: m.cfg.client, URL: m.url, Header: m.cfg.header, Classify: classifyHTTP, MaxEvent: m.cfg.maxEvent}
		httpx.Stream(ctx, e, body, yield, func(data []byte) bool { return d.handle(data, yield) })
	}
}
