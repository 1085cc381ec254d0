package toolargs

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestObject_AlwaysAValidObjectKeepingWhatTheModelSent(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"object passes through", `{"city":"Paris"}`, `{"city":"Paris"}`},
		{"surrounding space trimmed", " {\"a\":1}\n", `{"a":1}`},
		{"empty is the empty object", ``, `{}`},
		{"blank is the empty object", "  ", `{}`},
		{"truncated at max_tokens", `{"a":1,"b":`, `{"invalid_arguments":"{\"a\":1,\"b\":"}`},
		{"trailing garbage", `{"a":1}x`, `{"invalid_arguments":"{\"a\":1}x"}`},
		{"array is not an object", `[1,2]`, `{"invalid_arguments":"[1,2]"}`},
		{"null is not an object", `null`, `{"invalid_arguments":"null"}`},
		{"string is not an object", `"Paris"`, `{"invalid_arguments":"\"Paris\""}`},
		{"invalid UTF-8 is replaced, not fatal", "{\"a\":\"\xff", `{"invalid_arguments":"{\"a\":\"\ufffd"}`},
		{"valid JSON holding invalid UTF-8 is wrapped", "{\"a\":\"\xff\"}", `{"invalid_arguments":"{\"a\":\"\ufffd\"}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Object([]byte(tc.in))
			if string(got) != tc.want {
				t.Errorf("Object(%q) = %s, want %s", tc.in, got, tc.want)
			}
			var obj map[string]any
			if err := json.Unmarshal(got, &obj); err != nil || obj == nil || !utf8.Valid(got) {
				t.Errorf("result is not a JSON object in UTF-8: %v", err)
			}
			if _, err := json.Marshal(struct{ In json.RawMessage }{got}); err != nil {
				t.Errorf("result does not marshal as a RawMessage: %v", err)
			}
		})
	}
}

func TestObject_NestingPastTheDecoderDepthIsWrapped(t *testing.T) {
	deep := make([]byte, 0, 20002)
	deep = append(deep, '{')
	deep = append(deep, `"a":`...)
	for range 10001 {
		deep = append(deep, '[')
	}
	got := Object(deep)
	var obj map[string]string
	if err := json.Unmarshal(got, &obj); err != nil || obj[InvalidKey] != string(deep) {
		t.Fatalf("deeply nested arguments were not kept as a string: %v", err)
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":`, `[`, `null`, "\xff", `{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got := Object(in)
		if !utf8.Valid(got) || got[0] != '{' {
			t.Fatalf("Object(%q) = %q, not an object in UTF-8", in, got)
		}
		var obj map[string]any
		if err := json.Unmarshal(got, &obj); err != nil {
			t.Fatalf("Object(%q) = %s, not an object: %v", in, got, err)
		}
	})
}
