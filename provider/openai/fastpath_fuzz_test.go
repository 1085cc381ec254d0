package openai

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
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

// fuzzAgreement checks that the fast path, from the state each of primes
// leaves behind, translates data exactly as the general path does (or
// declines).
func fuzzAgreement(f *testing.F, glob string, mk func(slow bool) decoderUnderTest, primes ...[][]byte) {
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
		for _, prime := range primes {
			fast, slow := mk(false), mk(true)
			for _, p := range prime {
				feed(fast, p)
				feed(slow, p)
			}
			got, want := feed(fast, data), feed(slow, data)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after %q, event %q:\nfast path    %+v\ngeneral path %+v", prime[len(prime)-1], data, got, want)
			}
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
	// A started call, so argument deltas can take the fast path; and the
	// fast path's last chunk, a text, a reasoning or an argument delta, as
	// the template a fuzzed chunk may repeat.
	call := upTo(f, "testdata/chat/tool_call.sse", `"id":"call_`)
	args := append(call[:len(call):len(call)], eventData(f, "testdata/chat/tool_call.sse")[len(call)])
	text := upTo(f, "testdata/chat/text.sse", `"content":"I'm"`)
	reasoning := upTo(f, "testdata/chat/*reasoning*.sse", `"reasoning`)
	obfuscated := upTo(f, "testdata/chat/azure_prompt_filter_first.sse", `"content":"Capital"`)
	for _, p := range [][][]byte{args, text, obfuscated} {
		// The template's chunk with another string, well-formed or not.
		last := string(p[len(p)-1])
		for _, s := range []string{"", "x", `\"`, `\\`, `\`, `"`, `\u00e9\n`, `\ud800`, "\x01", "\x80", `\u12`, "é", "a\nb"} {
			for _, old := range []string{`"content":"Capital"`, `"content":"I'm"`, `"arguments":"{\"`} {
				if k := strings.Index(old, `":"`); strings.Contains(last, old) {
					f.Add([]byte(strings.Replace(last, old, old[:k+3]+s+`"`, 1)))
				}
			}
			f.Add([]byte(strings.Replace(last, `"obfuscation":"`, `"obfuscation":"`+s, 1)))
		}
	}
	fuzzAgreement(f, "testdata/chat/*.sse", func(slow bool) decoderUnderTest { return &chatDecoder{slowOnly: slow} }, call, args, text, reasoning, obfuscated)
}

func FuzzResponsesFastPathAgreesWithDecoder(f *testing.F) {
	prime := upTo(f, "testdata/responses/calculator.1.sse", `"type":"function_call"`)
	// The large lifecycle events, read by the fast path too, with what
	// encoding/json reads differently or refuses in what they decode.
	completed := `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","object":"response","model":"gpt-5","output":[{"type":"message","content":[{"type":"output_text","text":"Hi"}]}],"error":null,"incomplete_details":null,"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":3},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":19}}}`
	for _, edit := range [][2]string{{"", ""}, {`"input_tokens":12`, `"input_tokens":-1`}, {`"input_tokens":12`, `"input_tokens":1.0`},
		{`"input_tokens":12`, `"input_tokens":"12"`}, {`"cached_tokens":3`, `"cached_tokens":null`}, {`{"cached_tokens":3}`, `null`},
		{`{"cached_tokens":3}`, `[]`}, {`"error":null`, `"error":{"message":"x"}`}, {`"incomplete_details":null`, `"incomplete_details":{"reason":"max_output_tokens"}`},
		{`"model":"gpt-5"`, `"Model":"gpt-5"`}, {`"model":"gpt-5"`, `"model":1`}, {`"model":"gpt-5"`, `"model":"\xff"`}, {`"id":"resp_1"`, `"id":"r\u00e9"`},
		{`"id":"resp_1"`, `"id":null`}, {`"usage":{`, `"usage":null,"x":{`}, {`"usage":{"input_tokens":12`, `"usage":{"input_tokens":12,"input_tokens":1`},
		{`"type":"response.completed"`, `"type":"response.created"`}, {`"type":"response.completed"`, `"type":"response.in_progress"`},
		{`"sequence_number":9`, `"delta":"x"`}, {`"response":{`, `"response":null,"r":{`}} {
		f.Add([]byte(strings.Replace(completed, edit[0], edit[1], 1)))
	}
	fuzzAgreement(f, "testdata/responses/*.sse", func(slow bool) decoderUnderTest { return &responsesDecoder{slowOnly: slow} }, prime)
}
