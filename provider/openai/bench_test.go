package openai_test

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkStreamDecode1000Deltas replays, from memory, a stream of 1,000
// recorded text deltas through each adapter: request encoding, SSE framing,
// JSON decoding and translation into model events.
func BenchmarkStreamDecode1000Deltas(b *testing.B) {
	cases := []struct {
		name, fixture, marker string
		model                 func(*http.Client) (helikon.Model, error)
	}{
		{"chat", "testdata/chat/text.sse", `"delta":{"content":"I'm"}`, func(c *http.Client) (helikon.Model, error) {
			return openai.Chat("gpt-4o", openai.WithAPIKey("k"), openai.WithHTTPClient(c))
		}},
		{"responses", "testdata/responses/calculator.4.sse", `"type":"response.output_text.delta"`, func(c *http.Client) (helikon.Model, error) {
			return openai.Responses("gpt-5", openai.WithAPIKey("k"), openai.WithHTTPClient(c))
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			rec, err := providertest.Load(c.fixture)
			if err != nil {
				b.Fatal(err)
			}
			body, err := providertest.RepeatEvent(rec, c.marker, 1000)
			if err != nil {
				b.Fatal(err)
			}
			m, err := c.model(&http.Client{Transport: providertest.MemoryTransport{Body: body}})
			if err != nil {
				b.Fatal(err)
			}
			providertest.BenchStream(b, m, len(body))
		})
	}
}
