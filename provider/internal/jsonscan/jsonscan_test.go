package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestField_FindsTopLevelKeysOnly(t *testing.T) {
	obj := []byte(` {"type":"content_block_delta", "index" : 12,"nested":{"text":"no","a":[1,{"b":"]}"}]},"delta":{"type":"text_delta","text":"Hi \"you\""},"n":null,"t":true}`)
	tests := map[string]string{
		"type": `"content_block_delta"`, "index": "12", "delta": `{"type":"text_delta","text":"Hi \"you\""}`,
		"n": "null", "t": "true", "text": "", "missing": "",
	}
	for key, want := range tests {
		if got := string(Field(obj, key)); got != want {
			t.Errorf("Field(%q) = %q, want %q", key, got, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a"`, `{"a":`, `{"a":"x`, `{"a":{"b":1}`, `{a:1}`, `{"a":1 "b":2}`} {
		if got := Field([]byte(bad), "b"); got != nil {
			t.Errorf("Field(%q) = %q, want nil", bad, got)
		}
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

func FuzzField(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,"x\"y"]},"c":"d"}`), "c")
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		v := Field(obj, key)
		if v != nil && json.Valid(obj) {
			var m map[string]json.RawMessage
			if json.Unmarshal(obj, &m) == nil {
				if _, ok := m[key]; !ok {
					t.Errorf("Field found %q in %s, encoding/json did not", key, obj)
				}
			}
		}
		if s, ok := AppendString(nil, v); ok && json.Valid(v) {
			var want string
			if json.Unmarshal(v, &want) == nil && want != string(s) {
				t.Errorf("AppendString(%s) = %q, want %q", v, s, want)
			}
		}
	})
}

func TestEach_VisitsMembersInOrderAndStops(t *testing.T) {
	var keys []string
	ok := Each([]byte(`{"a":1,"b":{"c":2},"d":[3]}`), func(k, v []byte) bool {
		keys = append(keys, string(k)+"="+string(v))
		return string(k) != "b"
	})
	if !ok || len(keys) != 2 || keys[1] != `b={"c":2}` {
		t.Errorf("Each = %v %v", keys, ok)
	}
	if !Each([]byte(`{}`), func(k, v []byte) bool { t.Error("empty object has members"); return true }) {
		t.Error("{} is well-formed")
	}
	if Each([]byte(`{"a":1,}`), func(k, v []byte) bool { return true }) {
		t.Error("trailing comma accepted")
	}
}
