package peers

import (
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	hopenai "github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkDecodeVsOpenAIGo replays the same recorded stream of 1,000 text
// deltas (the provider package's fixtures, served from memory) through
// openai-go's streaming client and through Helikon's adapter, and reports
// x-openai-go: Helikon's time over openai-go's.
func BenchmarkDecodeVsOpenAIGo(b *testing.B) {
	cases := []struct {
		name, fixture, marker string
		helikon               func(*http.Client) (helikon.Model, error)
		official              func(b *testing.B, c openai.Client) int
	}{
		{"chat", "../../provider/openai/testdata/chat/text.sse", `"delta":{"content":"I'm"}`,
			func(c *http.Client) (helikon.Model, error) {
				return hopenai.Chat("gpt-4o", hopenai.WithAPIKey("k"), hopenai.WithHTTPClient(c))
			},
			func(b *testing.B, c openai.Client) int {
				s := c.Chat.Completions.NewStreaming(b.Context(), openai.ChatCompletionNewParams{
					Model:    "gpt-4o",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
				})
				n := 0
				for s.Next() {
					if ch := s.Current().Choices; len(ch) > 0 && ch[0].Delta.Content != "" {
						n++
					}
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
				return n
			}},
		{"responses", "../../provider/openai/testdata/responses/calculator.4.sse", `"type":"response.output_text.delta"`,
			func(c *http.Client) (helikon.Model, error) {
				return hopenai.Responses("gpt-5", hopenai.WithAPIKey("k"), hopenai.WithHTTPClient(c))
			},
			func(b *testing.B, c openai.Client) int {
				s := c.Responses.NewStreaming(b.Context(), responses.ResponseNewParams{
					Model: "gpt-5",
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")},
				})
				n := 0
				for s.Next() {
					if ev := s.Current(); ev.Type == "response.output_text.delta" && ev.Delta != "" {
						n++
					}
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
				return n
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
			hc := &http.Client{Transport: providertest.MemoryTransport{Body: body}}
			m, err := c.helikon(hc)
			if err != nil {
				b.Fatal(err)
			}
			oc := openai.NewClient(option.WithAPIKey("k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
			req := &helikon.ModelRequest{Messages: helikon.UserText("hello")}
			want := providertest.CountDeltas(b, m, req)
			if got := c.official(b, oc); got != want {
				b.Fatalf("openai-go saw %d text deltas, helikon %d", got, want)
			}
			b.ReportAllocs()
			benchpair.Run(b, "openai-go", func() { c.official(b, oc) }, "helikon", func() { providertest.CountDeltas(b, m, req) })
		})
	}
}
