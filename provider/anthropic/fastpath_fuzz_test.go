package anthropic

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/providertest"
)

type outcome struct {
	events []helikon.ModelEvent
	err    string
	more   bool
}

func feed(d *decoder, data []byte) outcome {
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

// FuzzFastPathAgreesWithDecoder checks that the fast path translates any
// event exactly as the general path does (or declines), from the state of
// a stream whose tool_use block has started.
func FuzzFastPathAgreesWithDecoder(f *testing.F) {
	rec, err := providertest.Load("testdata/tool_call.sse")
	if err != nil {
		f.Fatal(err)
	}
	var events, prime [][]byte
	for line := range bytes.SplitSeq(rec.Body, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			events = append(events, d)
		}
	}
	for _, d := range events {
		if prime == nil || !bytes.Contains(prime[len(prime)-1], []byte(`"tool_use"`)) {
			prime = append(prime, d)
		}
		f.Add(d)
		// The malformations the fast path once accepted.
		f.Add(d[:len(d)-1])
		f.Add(append(append([]byte(nil), d...), " x"...))
	}
	// Input for a block no content_block_start opened.
	f.Add([]byte(`{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, slow := &decoder{}, &decoder{slowOnly: true}
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
