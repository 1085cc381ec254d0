package anthropic_test

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkStreamDecode1000Deltas replays, from memory, a stream of 1,000
// recorded text deltas through the adapter: request encoding, SSE framing,
// JSON decoding and translation into model events.
func BenchmarkStreamDecode1000Deltas(b *testing.B) {
	rec, err := providertest.Load("testdata/text.sse")
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
	req := &helikon.ModelRequest{Messages: helikon.UserText("hello")}
	b.SetBytes(int64(len(body)))
	want := countDeltas(b, m, req)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for ev, err := range m.Invoke(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.(helikon.TokenDelta); ok {
				n++
			}
		}
		if n != want {
			b.Fatalf("%d deltas, want %d", n, want)
		}
	}
	b.ReportMetric(float64(want), "deltas/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*want), "ns/delta")
}

// countDeltas replays the stream once and counts its text deltas: the
// repeated ones plus those the recording has after them.
func countDeltas(b *testing.B, m helikon.Model, req *helikon.ModelRequest) int {
	b.Helper()
	n := 0
	for ev, err := range m.Invoke(b.Context(), req) {
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := ev.(helikon.TokenDelta); ok {
			n++
		}
	}
	if n < 1000 {
		b.Fatalf("only %d deltas", n)
	}
	return n
}
