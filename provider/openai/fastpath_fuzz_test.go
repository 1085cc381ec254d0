package openai

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/providertest"
)

// decoderUnderTest is what the fuzz targets need of a stream decoder.
type decoderUnderTest interface {
	handle(data []byte, yield func(helikon.ModelEvent, error) bool) bool
}

// outcome is what one event made a decoder yield.
type outcome struct {
	events []helikon.ModelEvent
	err    string
	more   bool
}

func feed(d decoderUnderTest, data []byte) outcome {
	var o outcome
	o.more = d.handle(data, func(ev helikon.ModelEvent, err error) bool {
		if err != nil {
			o.err = err.Error()
			return false
		}
		o.events = append(o.events, ev)
		return true
	})
	return o
}

// eventData returns the data of every event of the recordings matching
// glob, for fuzz seeds.
func eventData(f *testing.F, glob string) [][]byte {
	files, _ := filepath.Glob(glob)
	var out [][]byte
	for _, file := range files {
		rec, err := providertest.Load(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.SplitSeq(rec.Body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		f.Fatalf("no events in %s", glob)
	}
	return out
}

// fuzzAgreement checks that the fast path, from the state prime leaves
// behind, translates data exactly as the general path does (or declines).
func fuzzAgreement(f *testing.F, glob string, mk func(slow bool) decoderUnderTest, prime [][]byte) {
	files, _ := filepath.Glob(glob)
	for _, file := range files {
		events := eventData(f, file)
		// A stream's first and last events hold its every kind of event;
		// the long run of deltas between them adds only time.
		if len(events) > 60 {
			events = append(events[:40:40], events[len(events)-20:]...)
		}
		for _, d := range events {
			f.Add(d)
			// The malformations the fast path once accepted.
			f.Add(d[:len(d)-1])
			f.Add(append(append([]byte(nil), d...), " x"...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, slow := mk(false), mk(true)
		for _, p := range prime {
			feed(fast, p)
			feed(slow, p)
		}
		got, want := feed(fast, data), feed(slow, data)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("event %q:\nfast path    %+v\ngeneral path %+v", data, got, want)
		}
	})
}

// upTo returns the events of a recording up to and including the first
// whose data contains marker: the state a fuzzed event arrives in.
func upTo(f *testing.F, file, marker string) [][]byte {
	var out [][]byte
	for _, d := range eventData(f, file) {
		out = append(out, d)
		if bytes.Contains(d, []byte(marker)) {
			return out
		}
	}
	f.Fatalf("no event in %s contains %q", file, marker)
	return nil
}

func FuzzChatFastPathAgreesWithDecoder(f *testing.F) {
	// A started call, so argument deltas can take the fast path.
	prime := upTo(f, "testdata/chat/tool_call.sse", `"id":"call_`)
	fuzzAgreement(f, "testdata/chat/*.sse", func(slow bool) decoderUnderTest { return &chatDecoder{slowOnly: slow} }, prime)
}

func FuzzResponsesFastPathAgreesWithDecoder(f *testing.F) {
	prime := upTo(f, "testdata/responses/calculator.1.sse", `"type":"function_call"`)
	fuzzAgreement(f, "testdata/responses/*.sse", func(slow bool) decoderUnderTest { return &responsesDecoder{slowOnly: slow} }, prime)
}
