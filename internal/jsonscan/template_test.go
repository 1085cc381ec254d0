package jsonscan

import (
	"bytes"
	"slices"
	"testing"
)

// remembered returns a Template of in, its root read with keys and the
// string value of its member "s" as the slot read.
func remembered(t testing.TB, doc *Document, in string, keys *Keys) (*Template, [][]byte, bool) {
	t.Helper()
	vals := make([][]byte, keys.Len())
	if !doc.Reset([]byte(in)) || !doc.Object(doc.Root(), keys, vals) || len(vals[0]) == 0 || vals[0][0] != '"' {
		return nil, nil, false
	}
	var tm Template
	if !tm.Set(doc, keys, vals[0]) {
		t.Fatalf("Set(%q) refused the string value of s", in)
	}
	return &tm, vals, true
}

func TestTemplate_MatchesTheSameMembersAroundOtherStrings(t *testing.T) {
	keys := MustKeys("s", "n")
	var doc Document
	tm, _, ok := remembered(t, &doc, `{"id":"a","s":"Hi","n":1,"pad":"xy"}`, keys)
	if !ok {
		t.Fatal("not remembered")
	}
	out := make([][]byte, 1)
	for in, want := range map[string]string{
		`{"id":"a","s":" there","n":1,"pad":"xy"}`:             `" there"`,
		`{"id":"bcd","s":"\"q\"","n":1,"pad":""}`:              `"\"q\""`, // unread strings may change too
		`{"id":"a","s":"","n":1,"pad":"\u00e9\\"}`:             `""`,
		`{"id":"a","s":"Hi","n":2,"pad":"xy"}`:                 "", // a value outside the slots
		`{"id":"a","s":"Hi","n":1,"pad":"xy"} `:                "",
		`{"id":"a","s":"H"i","n":1,"pad":"xy"}`:                "", // the slot's string ends early
		`{"id":"a","s":"Hi\","n":1,"pad":"xy"}`:                "",
		"{\"id\":\"a\",\"s\":\"\x01\",\"n\":1,\"pad\":\"xy\"}": "",
		`{"id":"a","s":"\x","n":1,"pad":"xy"}`:                 "",
		`{"id":"a","s":"Hi","n":1,"pad":"x","n":1}`:            "",
	} {
		got := tm.Match([]byte(in), out)
		if got != (want != "") || got && string(out[0]) != want {
			t.Errorf("Match(%q) = %v %q, want %q", in, got, out[0], want)
		}
	}
	var zero Template
	if zero.Match([]byte(`{}`), out) {
		t.Error("the zero Template matched")
	}
	if tm.Set(&doc, MustKeys("n"), doc.Root()) {
		t.Error("Set took a slot that is not a string, with keys the root was not read with")
	}
}

// What a Template matches, a Document accepts, and reads alike but for the
// slot; what a Document accepts and reads alike but for the strings of
// the slots, the Template matches.
func FuzzTemplate_MatchesOnlyWhatADocumentReadsAlike(f *testing.F) {
	chunk := `{"id":"a","object":"chunk","s":"Hi","n":null,"obfuscation":"xy"}`
	f.Add(chunk, `{"id":"a","object":"chunk","s":" there","n":null,"obfuscation":"abc"}`)
	f.Add(chunk, `{"id":"a","object":"chunk","s":"\"","n":null,"obfuscation":"xy"}`)
	f.Add(chunk, `{"id":"a","object":"chunk","s":"\","n":null,"obfuscation":"xy"}`)
	f.Add(chunk, `{"id":"a","object":"chunk","s":"Hi","n":null,"obfuscation":"xy","s":"x"}`)
	f.Add(`{"s":"a","n":[1,{"t":"u"}]}`, `{"s":"b","n":[1,{"t":"v"}]}`)
	f.Add(`{"s":"a","n":"b"}`, `{"s":"a","n":"c"}`)
	f.Add(`{"s":"a","m":"b"}`, `{"s":"a","m":"\ud800"}`)
	keys := MustKeys("s", "n")
	f.Fuzz(func(t *testing.T, first, second string) {
		var doc Document
		tm, want, ok := remembered(t, &doc, first, keys)
		if !ok {
			return
		}
		want = slices.Clone(want)
		out := make([][]byte, 1)
		in := []byte(second)
		matched := tm.Match(in, out)
		var fresh Document
		got := make([][]byte, keys.Len())
		read := fresh.Reset([]byte(second)) && fresh.Object(fresh.Root(), keys, got)
		if matched {
			if !read || !bytes.Equal(got[0], out[0]) || !bytes.Equal(got[1], want[1]) {
				t.Fatalf("after %q, Match(%q) = %q, but a Document reads %v %q", first, second, out[0], read, got)
			}
		}
	})
}
