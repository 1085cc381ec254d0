package jsonscan

import (
	"fmt"
	"strings"
	"testing"
)

func TestNewKeys_RejectsARepeatedNameAndMoreThan32(t *testing.T) {
	if _, err := NewKeys("a", "b", "a"); err == nil {
		t.Error("a name listed twice was accepted")
	}
	many := make([]string, maxKeys+1)
	for i := range many {
		many[i] = fmt.Sprint("k", i)
	}
	if _, err := NewKeys(many...); err == nil {
		t.Error("33 names were accepted")
	}
	if k, err := NewKeys(many[:maxKeys]...); err != nil || k.Len() != maxKeys {
		t.Errorf("32 names: %v", err)
	}
}

// Names of every length up to three words, each at the start of a long
// object and at the very end of a short one (where the key's first word
// cannot be read whole): the name is read, the name in another case is
// refused, a key one byte off is skipped, and an absent name reads nil
// whatever vals held before.
func TestObject_MatchesNamesOfEveryLengthWhereverTheKeyEnds(t *testing.T) {
	for n := 1; n <= 24; n++ {
		name := strings.Repeat("k", n-1) + "z"
		keys := MustKeys("x", name)
		upper := strings.ToUpper(name[:1]) + name[1:]
		off := name[:n-1] + "y"
		for _, tt := range []struct {
			in       string
			ok       bool
			want     string
			describe string
		}{
			{`{"` + name + `":1}`, true, "1", "short"},
			{`{"` + name + `":"` + strings.Repeat("v", 20) + `","x":2}`, true, `"` + strings.Repeat("v", 20) + `"`, "long"},
			{`{"` + upper + `":1}`, false, "", "other case"},
			{`{"x":2,"` + upper + `":1}`, false, "", "other case, last"},
			{`{"` + off + `":1}`, true, "", "one byte off"},
			{`{"x":2,"` + off + `":1}`, true, "", "one byte off, last"},
			{`{"x":2,"` + name + `":1,"` + name + `":3}`, false, "", "repeated"},
		} {
			vals := [][]byte{[]byte("stale"), []byte("stale")}
			ok := Object([]byte(tt.in), keys, vals)
			if ok != tt.ok || ok && string(vals[1]) != tt.want {
				t.Errorf("%d bytes, %s: Object(%s) = %v, %q; want %v, %q", n, tt.describe, tt.in, ok, vals[1], tt.ok, tt.want)
			}
			if ok && !strings.Contains(tt.in, `"x"`) && vals[0] != nil {
				t.Errorf("%d bytes, %s: an absent name kept the value %q of an earlier read", n, tt.describe, vals[0])
			}
		}
	}
}

// BenchmarkObject reads the members an adapter's fast path reads from the
// events that make up nearly all of a stream (recorded, one each).
func BenchmarkObject(b *testing.B) {
	for _, bc := range []struct {
		name, event string
		keys        *Keys
	}{
		{"responses", `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_01830d662ab3856501693c32183a488190a612c410a0a39823","output_index":0,"content_index":0,"delta":"The","logprobs":[],"obfuscation":"o6siFnnjPfOpq"}`,
			MustKeys("type", "item_id", "delta", "summary_index", "item", "response", "code", "message", "error", "arguments")},
		{"anthropic", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
			MustKeys("type", "index", "delta", "message", "content_block", "usage", "error", "stop_details")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			event, vals := []byte(bc.event), make([][]byte, bc.keys.Len())
			b.SetBytes(int64(len(event)))
			for b.Loop() {
				if !Object(event, bc.keys, vals) {
					b.Fatal("rejected")
				}
			}
		})
	}
}
