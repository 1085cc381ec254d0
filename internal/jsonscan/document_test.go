package jsonscan

import (
	"bytes"
	"slices"
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
	if !doc.Object(doc.Root(), MustKeys("candidates", "n"), v) || string(v[1]) != "null" {
		t.Fatalf("root members = %q", v)
	}
	cand, only := doc.FirstElem(v[0])
	if !only || !doc.Object(cand, MustKeys("content", "index"), v) || string(v[1]) != "0" {
		t.Fatalf("candidate = %q %v, members %q", cand, only, v)
	}
	if !doc.Object(v[0], MustKeys("parts"), v) {
		t.Fatal("content not read")
	}
	part, only := doc.FirstElem(v[0])
	if !only || !doc.Object(part, MustKeys("text"), v) || string(v[0]) != `"Hi \"you\""` {
		t.Fatalf("part = %q %v, text %q", part, only, v[0])
	}
}

func TestDocument_ReadsOnlyValuesItHandedOut(t *testing.T) {
	var doc Document
	v := make([][]byte, 1)
	if doc.Object([]byte(`{"a":1}`), MustKeys("a"), v) {
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
		if doc.Object(foreign, MustKeys("b"), v) {
			t.Errorf("%s: Object read %q", name, foreign)
		}
		if _, only := doc.FirstElem(foreign); only {
			t.Errorf("%s: FirstElem read %q", name, foreign)
		}
	}
	if doc.Reset([]byte(`{"a":`)) || doc.Root() != nil || doc.Object(in, MustKeys("a"), v) {
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
		if doc.Object(doc.Root(), MustKeys("a"), make([][]byte, 1)) {
			t.Errorf("Object(%q) accepted a key encoding/json could read differently", dup)
		}
	}
}

// A Document that read other inputs first, and resumes after the members
// an input shares with the one before, indexes exactly what a fresh one
// does.
func FuzzDocument_ResumedIndexEqualsAFreshOne(f *testing.F) {
	chunk := func(id, content string) string {
		return `{"id":"` + id + `","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}]}`
	}
	hi, there := chunk("a", "Hi"), chunk("a", " there")
	f.Add(hi, there, hi)
	f.Add(hi, chunk("b", "Hi"), there)
	f.Add(hi, hi+"x", there)
	f.Add(hi, chunk("a", `\u12`), there)
	f.Add(there, `{"id":"a"}`, hi)
	f.Add(`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2,"c":`, `{"a":1,"b":2,"c":3}`)
	f.Add(`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2}`, `{"a":1,"b":2,"c":[1]}`)
	f.Add(`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2,"b":2}`, `{"a":1}`)
	f.Add(`{"a":1,"b":{"x":[1,2]},"c":3}`, `{"a":1,"b":{"x":[1,2]},"c":[}`, `{"a":1,"b":{"x":[1,2]},"c":{}}`)
	f.Add(` {"a":1, "b":2}`, ` {"a":1, "b":2} `, `[1]`)
	keys := MustKeys("a", "b", "c", "id", "choices")
	f.Fuzz(func(t *testing.T, first, second, third string) {
		var reused Document
		if reused.Reset([]byte(first)) {
			reused.Object(reused.Root(), keys, make([][]byte, keys.Len()))
		}
		for _, next := range []string{second, third} {
			// Copies, as a stream's reader reuses its buffer.
			var fresh Document
			in, in2 := []byte(next), []byte(next)
			okR, okF := reused.Reset(in), fresh.Reset(in2)
			if okR != okF {
				t.Fatalf("after %q, %q: Reset(%q) = %v, fresh %v", first, second, next, okR, okF)
			}
			if okR && (string(reused.Root()) != string(fresh.Root()) || !slices.Equal(reused.ends, fresh.ends)) {
				t.Fatalf("after %q, %q: the index of %q differs from a fresh one's", first, second, next)
			}
			if !okR {
				continue
			}
			// The root read through the memo of the last one, and fresh.
			valsR, valsF := make([][]byte, keys.Len()), make([][]byte, keys.Len())
			objR, objF := reused.Object(reused.Root(), keys, valsR), fresh.Object(fresh.Root(), keys, valsF)
			if objR != objF || objR && !slices.EqualFunc(valsR, valsF, bytes.Equal) {
				t.Fatalf("after %q, %q: Object(%q) = %v %q, fresh %v %q", first, second, next, objR, valsR, objF, valsF)
			}
		}
	})
}

// commonPrefix agrees with a byte-by-byte comparison wherever the first
// difference lies: in a block of four words, in a word, in the tail.
func TestCommonPrefix_FindsTheFirstDifference(t *testing.T) {
	a := []byte(strings.Repeat("0123456789abcdef", 6))
	for n := 0; n <= len(a); n++ {
		for i := 0; i <= n; i++ {
			b := bytes.Clone(a[:n])
			want := n
			if i < n {
				b[i] ^= 0x40
				want = i
			}
			if got := commonPrefix(a, b); got != want {
				t.Fatalf("commonPrefix(%d bytes, %d bytes differing at %d) = %d, want %d", len(a), n, i, got, want)
			}
		}
	}
}

// A root read after a resumed Reset takes its members' places from the
// memo of the last read: what it returns is the new input's values.
func TestDocument_RootReadAfterResumeReturnsTheNewValues(t *testing.T) {
	keys := MustKeys("id", "choices", "usage")
	var doc Document
	v := make([][]byte, 3)
	for _, in := range []string{
		`{"id":"x","model":"m","choices":[1],"usage":null}`,
		`{"id":"x","model":"m","choices":[2],"usage":null}`,
		`{"id":"x","model":"m","choices":[2],"usage":{"n":1}}`,
		`{"id":"x","model":"m","choices":[2]}`,
		`{"id":"x","model":"m","choices":[2],"Usage":1}`,
		`{"id":"x","model":"m","choices":[3],"id":"y"}`,
	} {
		if !doc.Reset([]byte(in)) {
			t.Fatalf("Reset(%q) rejected", in)
		}
		var fresh Document
		fresh.Reset([]byte(in))
		want := make([][]byte, 3)
		okW := fresh.Object(fresh.Root(), keys, want)
		if ok := doc.Object(doc.Root(), keys, v); ok != okW || ok && !slices.EqualFunc(v, want, bytes.Equal) {
			t.Errorf("Object(%q) = %v %q, want %v %q", in, ok, v, okW, want)
		}
	}
}
