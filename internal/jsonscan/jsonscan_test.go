package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestObject_ReadsListedTopLevelKeys(t *testing.T) {
	obj := []byte(` {"type":"content_block_delta", "index" : 12,"nested":{"text":"no","a":[1,{"b":"]}"}]},"delta":{"type":"text_delta","text":"Hi \"you\""},"n":null,"t":true} `)
	names := []string{"type", "index", "delta", "n", "t", "text", "missing"}
	keys := MustKeys(names...)
	want := []string{`"content_block_delta"`, "12", `{"type":"text_delta","text":"Hi \"you\""}`, "null", "true", "", ""}
	vals := make([][]byte, len(names))
	if !Object(obj, keys, vals) {
		t.Fatal("Object rejected a well-formed object")
	}
	for i, k := range names {
		if string(vals[i]) != want[i] {
			t.Errorf("%s = %q, want %q", k, vals[i], want[i])
		}
	}
}

func TestObject_RejectsWhatEncodingJSONRejectsOrReadsDifferently(t *testing.T) {
	names := []string{"a", "b"}
	keys := MustKeys(names...)
	for name, bad := range map[string]string{
		"empty":                  ``,
		"array":                  `[]`,
		"missing closing brace":  `{"a":1`,
		"missing value":          `{"a":`,
		"unterminated string":    `{"a":"x`,
		"unclosed nested object": `{"a":{"b":1}`,
		"unquoted key":           `{a:1}`,
		"missing comma":          `{"a":1 "b":2}`,
		"trailing comma":         `{"a":1,}`,
		"trailing garbage":       `{"a":1}x`,
		"second object":          `{"a":1}{"b":2}`,
		"mismatched brackets":    `{"a":[1}]}`,
		"bad literal":            `{"a":tru}`,
		"bad number":             `{"a":01}`,
		"bare minus":             `{"a":-}`,
		"bad fraction":           `{"a":1.}`,
		"bad exponent":           `{"a":1e}`,
		"bad escape":             `{"a":"\x"}`,
		"short unicode escape":   `{"a":"\u12"}`,
		"control character":      "{\"a\":\"\x01\"}",
		"duplicate listed key":   `{"a":1,"a":2}`,
		"key in another case":    `{"A":1}`,
		"escaped key":            `{"\u0061":1}`,
		"non-ASCII key":          `{"\u212a":1}`,
		"nesting past the bound": `{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
	} {
		if Object([]byte(bad), keys, make([][]byte, 2)) {
			t.Errorf("%s: Object(%q) accepted", name, bad)
		}
	}
	if !Object([]byte(`{"x":1,"X":2,"c":[true,false,null,-0.5e+3,"\u00e9"]}`), keys, make([][]byte, 2)) {
		t.Error("unlisted keys in any case, and every literal kind, are fine")
	}
}

func TestAppendString_DecodesLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" and \\ and /", "ctl \n\r\t\b\f", "é ÷ 日本", "emoji 😀", "\u2028", "<html>&"} {
		raw, _ := json.Marshal(s)
		got, ok := AppendString(nil, raw)
		if !ok || string(got) != s {
			t.Errorf("AppendString(%s) = %q %v, want %q", raw, got, ok, s)
		}
	}
	for raw, want := range map[string]string{`"\ud83d\ude00"`: "😀", `"\/"`: "/", `"\u00e9"`: "é", `"\ud83d"`: "\uFFFD"} {
		if got, ok := AppendString(nil, []byte(raw)); !ok || string(got) != want {
			t.Errorf("AppendString(%s) = %q, want %q", raw, got, want)
		}
	}
	for _, bad := range []string{`x`, `"`, `"a\"`, `"\x"`, `"\u12"`, "\"\x01\""} {
		if _, ok := AppendString(nil, []byte(bad)); ok {
			t.Errorf("AppendString(%q) accepted", bad)
		}
	}
}

func TestFirstElemAndInt(t *testing.T) {
	if e, only := FirstElem([]byte(`[{"index":0}]`)); string(e) != `{"index":0}` || !only {
		t.Errorf("FirstElem single = %q %v", e, only)
	}
	if e, only := FirstElem([]byte(`[1, 2]`)); string(e) != "1" || only {
		t.Errorf("FirstElem pair = %q %v", e, only)
	}
	if _, only := FirstElem([]byte(`[]`)); only {
		t.Error("empty array has no element")
	}
	if n, ok := Int([]byte("42")); !ok || n != 42 {
		t.Error("Int(42)")
	}
	if _, ok := Int([]byte("-1")); ok {
		t.Error("Int accepts only non-negative integers")
	}
}

// FuzzObject pits Object against encoding/json: whatever Object accepts,
// encoding/json must decode to the same member values; a Document reads
// what Object, Nested and FirstElem read.
func FuzzObject(f *testing.F) {
	for _, seed := range []string{
		`{"a":{"b":[1,"x\"y"]},"c":"d"}`, `{"a":1`, `{"a":1}x`, `{"A":1}`, `{"a":1,"a":2}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
		`{"a":[{"x":"]"} , 2],"b":[ -1.5e3 ]}`, `{"a":["\"",[]]}`,
		`{"a":{"x":"ends in \\\\","y":"\\\"q"},"b":"a string longer than sixteen bytes"}`,
		`{"reasoning_content":"r","reasoning_contenT":1}`, `{"reasoning_contenx":"r","Type":2}`, `{"typ\u0065":1}`,
	} {
		f.Add([]byte(seed))
	}
	// A name longer than a word, for the comparison past the first word.
	names := []string{"a", "b", "type", "reasoning_content"}
	keys := MustKeys(names...)
	f.Fuzz(func(t *testing.T, obj []byte) {
		var doc Document
		indexed := doc.Reset(obj)
		if indexed && !json.Valid(obj) {
			t.Fatalf("Document accepted %q, encoding/json rejects it", obj)
		}
		vals := make([][]byte, len(names))
		if !Object(obj, keys, vals) {
			if indexed && doc.Object(doc.Root(), keys, vals) {
				t.Fatalf("Document.Object accepted %q, Object rejects it", obj)
			}
			return
		}
		if !indexed {
			t.Fatalf("Document rejected %q, which Object accepted", obj)
		}
		docVals := make([][]byte, len(names))
		if !doc.Object(doc.Root(), keys, docVals) {
			t.Fatalf("Document.Object rejected %q, which Object accepted", obj)
		}
		for i := range names {
			if !bytes.Equal(docVals[i], vals[i]) {
				t.Fatalf("%s of %q: Document.Object read %q, Object %q", names[i], obj, docVals[i], vals[i])
			}
			if len(vals[i]) == 0 {
				continue
			}
			e1, only1 := FirstElem(vals[i])
			e2, only2 := doc.FirstElem(docVals[i])
			if !bytes.Equal(e1, e2) || only1 != only2 {
				t.Fatalf("FirstElem(%q) = %q %v, Document.FirstElem %q %v", vals[i], e1, only1, e2, only2)
			}
			var inner [4][]byte
			if Nested(vals[i], keys, inner[:]) != doc.Object(docVals[i], keys, make([][]byte, 4)) {
				t.Fatalf("Nested and Document.Object disagree on %q", vals[i])
			}
		}
		var got struct {
			A    json.RawMessage `json:"a"`
			B    json.RawMessage `json:"b"`
			Type json.RawMessage `json:"type"`
			R    json.RawMessage `json:"reasoning_content"`
		}
		if err := json.Unmarshal(obj, &got); err != nil {
			t.Fatalf("Object accepted %q, encoding/json rejects it: %v", obj, err)
		}
		for i, want := range []json.RawMessage{got.A, got.B, got.Type, got.R} {
			if !bytes.Equal(vals[i], want) {
				t.Fatalf("%s of %q: Object read %q, encoding/json %q", names[i], obj, vals[i], want)
			}
		}
		// Nested and FirstElem, reading what Object validated, agree too.
		nested := make([][]byte, len(names))
		if !Nested(obj, keys, nested) {
			t.Fatalf("Nested rejected %q, which Object accepted", obj)
		}
		for i := range names {
			if !bytes.Equal(nested[i], vals[i]) {
				t.Fatalf("%s of %q: Nested read %q, Object %q", names[i], obj, nested[i], vals[i])
			}
			var arr []json.RawMessage
			if json.Unmarshal(vals[i], &arr) != nil || len(arr) == 0 {
				continue
			}
			elem, only := FirstElem(vals[i])
			var first any
			if json.Unmarshal(elem, &first) != nil || !bytes.Equal(compact(t, elem), compact(t, arr[0])) || only != (len(arr) == 1) {
				t.Fatalf("FirstElem(%q) = %q %v, encoding/json %q of %d", vals[i], elem, only, arr[0], len(arr))
			}
		}
	})
}

func compact(t *testing.T, v []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		t.Fatalf("compact %q: %v", v, err)
	}
	return b.Bytes()
}

// FuzzAppendString pits AppendString against encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, seed := range []string{`"plain"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83d\u0041"`, "\"\xff\"", `"a\"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		s, ok := AppendString(nil, v)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(v, &want); err != nil {
			t.Fatalf("AppendString accepted %q, encoding/json rejects it: %v", v, err)
		}
		if want != string(s) {
			t.Fatalf("AppendString(%q) = %q, encoding/json %q", v, s, want)
		}
	})
}

func TestSkipString_FindsEveryEndingByteAtEveryPosition(t *testing.T) {
	// Every byte value at every position of strings spanning zero to two
	// words and a tail: the word-at-a-time scan must stop exactly where a
	// byte-by-byte one would.
	for n := range 20 {
		for pos := range n {
			for c := range 256 {
				s := bytes.Repeat([]byte{'a'}, n)
				s[pos] = byte(c)
				in := append(append([]byte{'"'}, s...), '"')
				var want int
				switch {
				case c < 0x20:
					want = -1
				case c == '"':
					want = pos + 2
				case c == '\\':
					// "\a" is no escape; a final '\\' escapes the closing
					// quote and leaves the string open.
					want = -1
				default:
					want = len(in)
				}
				if got := skipString(in, 0); got != want {
					t.Fatalf("skipString(%q) = %d, want %d", in, got, want)
				}
			}
		}
	}
}

func TestNumber_IsJSONsGrammarAndTellsIntegers(t *testing.T) {
	for _, tt := range []struct {
		in                 string
		integral, accepted bool
	}{
		{"0", true, true}, {"-12", true, true}, {"1.5", false, true}, {"1e3", false, true}, {"-0E+1", false, true},
		{"", false, false}, {"-", false, false}, {"01", false, false}, {"1.", false, false}, {".5", false, false},
		{"1e", false, false}, {"+1", false, false}, {"1 ", false, false}, {"0x1", false, false}, {"NaN", false, false},
	} {
		integral, ok := Number([]byte(tt.in))
		if ok != tt.accepted || integral != tt.integral || ok != json.Valid([]byte(tt.in)) && tt.in != "1 " {
			t.Errorf("Number(%q) = %v, %v; want %v, %v", tt.in, integral, ok, tt.integral, tt.accepted)
		}
	}
}
