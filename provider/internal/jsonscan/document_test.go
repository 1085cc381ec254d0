package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

func TestDocument_ReadsNestedValuesOfOneValidation(t *testing.T) {
	var doc Document
	in := []byte(` {"candidates":[ {"content":{"parts":[{"text":"Hi \"you\""}]},"index":0} ],"n":null} `)
	if !doc.Reset(in) {
		t.Fatal("Reset rejected a well-formed object")
	}
	v := make([][]byte, 2)
	if !doc.Object(doc.Root(), []string{"candidates", "n"}, v) || string(v[1]) != "null" {
		t.Fatalf("root members = %q", v)
	}
	cand, only := doc.FirstElem(v[0])
	if !only || !doc.Object(cand, []string{"content", "index"}, v) || string(v[1]) != "0" {
		t.Fatalf("candidate = %q %v, members %q", cand, only, v)
	}
	if !doc.Object(v[0], []string{"parts"}, v) {
		t.Fatal("content not read")
	}
	part, only := doc.FirstElem(v[0])
	if !only || !doc.Object(part, []string{"text"}, v) || string(v[0]) != `"Hi \"you\""` {
		t.Fatalf("part = %q %v, text %q", part, only, v[0])
	}
}

func TestDocument_ReadsOnlyValuesItHandedOut(t *testing.T) {
	var doc Document
	v := make([][]byte, 1)
	if doc.Object([]byte(`{"a":1}`), []string{"a"}, v) {
		t.Error("a zero Document read a slice it never indexed")
	}
	in := []byte(`{"a":{"b":1},"s":"{\"b\":2}"}`)
	if !doc.Reset(in) {
		t.Fatal("Reset rejected a well-formed object")
	}
	for name, foreign := range map[string][]byte{
		"a copy of the root":        bytes.Clone(doc.Root()),
		"an object inside a string": in[bytes.Index(in, []byte(`{\"`)):bytes.LastIndexByte(in, '}')],
		"part of a value":           in[5:9],
		"empty":                     in[5:5],
	} {
		if doc.Object(foreign, []string{"b"}, v) {
			t.Errorf("%s: Object read %q", name, foreign)
		}
		if _, only := doc.FirstElem(foreign); only {
			t.Errorf("%s: FirstElem read %q", name, foreign)
		}
	}
	if doc.Reset([]byte(`{"a":`)) || doc.Root() != nil || doc.Object(in, []string{"a"}, v) {
		t.Error("after a failed Reset the Document still reads the previous input")
	}
}

func TestDocument_RejectsWhatObjectRejects(t *testing.T) {
	var doc Document
	for _, bad := range []string{``, ` `, `{"a":1`, `{"a":1}x`, `{"a":01}`, "\"\x01\"",
		strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)} {
		if doc.Reset([]byte(bad)) {
			t.Errorf("Reset(%q) accepted", bad)
		}
	}
	big := []byte(`"` + strings.Repeat("x", MaxDocument) + `"`)
	if doc.Reset(big) {
		t.Error("Reset indexed an input over MaxDocument")
	}
	for _, dup := range []string{`{"a":1,"a":2}`, `{"A":1}`, `{"\u0061":1}`} {
		if !doc.Reset([]byte(dup)) {
			t.Fatalf("Reset rejected valid %q", dup)
		}
		if doc.Object(doc.Root(), []string{"a"}, make([][]byte, 1)) {
			t.Errorf("Object(%q) accepted a key encoding/json could read differently", dup)
		}
	}
}
