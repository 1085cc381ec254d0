package openai

import (
	"context"
	"iter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// ChatModel is a [helikon.Model] on the Chat Completions API
// (POST /chat/completions, streamed). It also speaks to OpenAI-compatible
// servers: vLLM, Ollama, LM Studio, OpenRouter and the like.
// A ChatModel is safe for concurrent use.
type ChatModel struct {
	id  string
	cfg config
	url string
}

// Chat returns a model on the Chat Completions API. The API key defaults to
// OPENAI_API_KEY and the base URL to OPENAI_BASE_URL, then [DefaultBaseURL];
// options override both. It fails with [ErrNoAPIKey] when OpenAI's own API
// would be called without a key.
func Chat(model string, opts ...Option) (*ChatModel, error) {
	cfg, err := newConfig(model, opts)
	if err != nil {
		return nil, err
	}
	return &ChatModel{id: model, cfg: cfg, url: cfg.baseURL + "/chat/completions"}, nil
}

// Provider returns "openai".
func (m *ChatModel) Provider() string { return providerName }

// ModelID returns the model id requests name.
func (m *ChatModel) ModelID() string { return m.id }

// Capabilities reports what Chat Completions supports: streaming, tools
// (several per turn), strict structured output, vision and reasoning models.
// Prompt caching is automatic on OpenAI's side and reported in usage.
func (m *ChatModel) Capabilities() helikon.ModelCapabilities {
	if m.cfg.caps != nil {
		return *m.cfg.caps
	}
	return helikon.ModelCapabilities{Streaming: true, Tools: true, ParallelToolCalls: true,
		StructuredOutput: true, Reasoning: true, Vision: true, PromptCaching: true,
		HonoursCancellation: true}
}

// Invoke streams one Chat Completions turn.
func (m *ChatModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		r, err := m.chatRequest(req)
		body, err := httpx.Encode(providerName, r, err)
		if err != nil {
			yield(nil, err)
			return
		}
		var d chatDecoder
		httpx.Stream(ctx, m.cfg.endpoint(m.url), body, yield, func(data []byte) bool { return d.handle(data, yield) })
	}
}
