package gemini_test

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkStreamDecode1000Deltas replays, from memory, a stream of 1,000
// recorded text chunks through the adapter: request encoding, SSE framing,
// JSON decoding and translation into model events. The Anthropic
// sub-benchmark runs the same measurement on that adapter's recording, as
// the baseline of the ratio.
func BenchmarkStreamDecode1000Deltas(b *testing.B) {
	b.Run("gemini", func(b *testing.B) {
		rec, err := providertest.Load("testdata/text.sse")
		if err != nil {
			b.Fatal(err)
		}
		body, err := providertest.RepeatEvent(rec, `"text":" \"r\"s in strawberry`, 1000)
		if err != nil {
			b.Fatal(err)
		}
		m, err := gemini.New("gemini-3-pro-preview", gemini.WithAPIKey("k"),
			gemini.WithHTTPClient(&http.Client{Transport: providertest.MemoryTransport{Body: body}}))
		if err != nil {
			b.Fatal(err)
		}
		providertest.BenchStream(b, m, len(body))
	})
	b.Run("anthropic-baseline", func(b *testing.B) {
		rec, err := providertest.Load("../anthropic/testdata/text.sse")
		if err != nil {
			b.Fatal(err)
		}
		body, err := providertest.RepeatEvent(rec, `"text_delta","text":"Hello"`, 1000)
		if err != nil {
			b.Fatal(err)
		}
		m, err := anthropic.Messages("claude-sonnet-4-5", anthropic.WithAPIKey("k"),
			anthropic.WithHTTPClient(&http.Client{Transport: providertest.MemoryTransport{Body: body}}))
		if err != nil {
			b.Fatal(err)
		}
		providertest.BenchStream(b, m, len(body))
	})
}
