package openai

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/providertest"
)

// mutate loads a recording and applies the replacements: a corrupt or
// disagreeing stream made from a real one.
func mutate(t *testing.T, fixture string, oldNew ...string) []byte {
	t.Helper()
	rec, err := providertest.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	body := rec.Body
	for i := 0; i < len(oldNew); i += 2 {
		if !bytes.Contains(body, []byte(oldNew[i])) {
			t.Fatalf("%s does not contain %q", fixture, oldNew[i])
		}
		body = bytes.ReplaceAll(body, []byte(oldNew[i]), []byte(oldNew[i+1]))
	}
	return body
}

func TestResponses_StreamCorruptionsAreMalformed(t *testing.T) {
	const calc = "testdata/responses/calculator.1.sse"
	const lm = "testdata/responses/lmstudio_arguments_only_in_done.sse"
	tests := []struct {
		name, want string
		body       func(t *testing.T) []byte
	}{
		{"argument delta for an unknown item", "unknown item", func(t *testing.T) []byte {
			return mutate(t, calc, `"type":"response.function_call_arguments.delta","sequence_number":41,"item_id":"fc_`,
				`"type":"response.function_call_arguments.delta","sequence_number":41,"item_id":"fc_unknown`)
		}},
		{"arguments done for an unknown item", "unknown item", func(t *testing.T) []byte {
			return mutate(t, lm, `"type":"response.function_call_arguments.done","item_id":"fc_`,
				`"type":"response.function_call_arguments.done","item_id":"fc_unknown`)
		}},
		{"arguments done disagreeing with the deltas", "disagree", func(t *testing.T) []byte {
			return mutate(t, calc, `"arguments":"{\"a\":12,\"b\":7,\"op\":\"add\"}"`, `"arguments":"{\"a\":12,\"b\":8,\"op\":\"add\"}"`)
		}},
		{"item done disagreeing with the arguments done event", "disagree", func(t *testing.T) []byte {
			return mutate(t, lm, `"status":"completed","arguments":"{\"location\":\"San Francisco\"}"`,
				`"status":"completed","arguments":"{\"location\":\"Paris\"}"`)
		}},
	}
	for _, tt := range tests {
		for _, slow := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				d := &responsesDecoder{slowOnly: slow}
				r := replayWith(t, tt.body(t), d.handle)
				if !strings.Contains(r.err, "malformed event") || !strings.Contains(r.err, tt.want) {
					t.Fatalf("err = %q, want a malformed-event error saying %q", r.err, tt.want)
				}
				for _, ev := range r.events {
					if _, ok := ev.(helikon.Finish); ok {
						t.Error("a corrupt stream reported Finish")
					}
				}
			})
		}
	}
}

func TestResponses_ReformattedDoneArgumentsStillAgree(t *testing.T) {
	body := mutate(t, "testdata/responses/calculator.1.sse", `"arguments":"{\"a\":12,\"b\":7,\"op\":\"add\"}"`, `"arguments":"{\"a\": 12, \"b\": 7, \"op\": \"add\"}"`)
	d := &responsesDecoder{}
	if r := replayWith(t, body, d.handle); r.err != "" {
		t.Fatalf("err = %s", r.err)
	}
}

func TestResponses_MalformedIsATransportModelError(t *testing.T) {
	body := mutate(t, "testdata/responses/calculator.1.sse", `"sequence_number":41,"item_id":"fc_`, `"sequence_number":41,"item_id":"fc_unknown`)
	d := &responsesDecoder{}
	var got error
	yield := func(ev helikon.ModelEvent, err error) bool {
		if err != nil {
			got = err
			return false
		}
		return true
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && !d.handle(data, yield) {
			break
		}
	}
	var me *helikon.ModelError
	if !errors.As(got, &me) || me.Kind != helikon.ModelTransport {
		t.Fatalf("err = %v, want a Transport ModelError", got)
	}
}
