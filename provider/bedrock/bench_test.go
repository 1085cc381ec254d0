package bedrock_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkStreamDecode1000Deltas replays, from memory, a recorded
// ConverseStream with its first text delta repeated 1,000 times, framed
// with the SDK's eventstream encoder and served by an in-memory
// RoundTripper: request encoding and signing, event-stream decoding and
// translation into model events, no sockets. "adapter" is the adapter
// alone (allocs/op, allocs per delta); "paired" runs it in the same loop
// as the bare bedrockruntime client decoding the same stream without the
// adapter, the baseline of the ratio x-sdk.
func BenchmarkStreamDecode1000Deltas(b *testing.B) {
	body := encode(b, repeatDelta(b, loadFrames(b, "testdata/text.jsonl"), 1000))
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient: &http.Client{Transport: providertest.MemoryTransport{Body: body, ContentType: "application/vnd.amazon.eventstream"}}}
	m, err := bedrock.New(cfg, claude)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("adapter", func(b *testing.B) {
		providertest.BenchStream(b, m, len(body))
	})
	b.Run("paired", func(b *testing.B) {
		client := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.Retryer = aws.NopRetryer{} })
		req := &helikon.ModelRequest{Messages: helikon.UserText("hello")}
		in := &bedrockruntime.ConverseStreamInput{ModelId: aws.String(claude), Messages: []types.Message{{Role: types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "hello"}}}}}
		want := 0
		sdk := func() {
			out, err := client.ConverseStream(b.Context(), in)
			if err != nil {
				b.Fatal(err)
			}
			s := out.GetStream()
			n := 0
			for ev := range s.Events() {
				if d, ok := ev.(*types.ConverseStreamOutputMemberContentBlockDelta); ok {
					if _, ok := d.Value.Delta.(*types.ContentBlockDeltaMemberText); ok {
						n++
					}
				}
			}
			if err := s.Close(); err != nil || n < 1000 {
				b.Fatalf("sdk: %d deltas, err %v", n, err)
			}
		}
		adapter := func() {
			n := providertest.CountDeltas(b, m, req)
			if want == 0 {
				want = n
			}
			if n != want || n < 1000 {
				b.Fatalf("adapter: %d deltas, want %d", n, want)
			}
		}
		b.ReportAllocs()
		benchpair.Run(b, "sdk", sdk, "adapter", adapter)
	})
}
