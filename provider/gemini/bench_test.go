package gemini_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

// BenchmarkStreamDecode1000Deltas replays, from memory, a recorded stream
// with one text chunk repeated 1,000 times through the adapter: request
// encoding, SSE framing, JSON decoding and translation into model events.
// "adapter" is the adapter alone (allocs/op, allocs per delta); "paired"
// runs it in the same loop as the baseline "bare", which reads the same
// bytes with a bufio.Scanner and decodes every chunk with json.Unmarshal
// into a struct holding only the text (no events, no checks): x-bare is
// the adapter's time over that.
func BenchmarkStreamDecode1000Deltas(b *testing.B) {
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
	b.Run("adapter", func(b *testing.B) {
		providertest.BenchStream(b, m, len(body))
	})
	b.Run("paired", func(b *testing.B) {
		req := &helikon.ModelRequest{Messages: helikon.UserText("hello")}
		want := providertest.CountDeltas(b, m, req)
		bare := func() {
			if n := bareDecode(b, body); n != want {
				b.Fatalf("bare: %d texts, want %d", n, want)
			}
		}
		adapter := func() {
			if n := providertest.CountDeltas(b, m, req); n != want {
				b.Fatalf("adapter: %d deltas, want %d", n, want)
			}
		}
		b.ReportAllocs()
		benchpair.Run(b, "bare", bare, "adapter", adapter)
	})
}

// bareDecode counts the non-empty texts of an SSE body the plain way.
func bareDecode(b *testing.B, body []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	n := 0
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		var c struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
		for _, cand := range c.Candidates {
			for _, p := range cand.Content.Parts {
				if p.Text != "" {
					n++
				}
			}
		}
	}
	return n
}
