package evals

import (
	"encoding/json"
	"testing"
)

// FuzzExpectedString holds the escape-free fast path to encoding/json on
// every valid JSON string.
func FuzzExpectedString(f *testing.F) {
	for _, s := range []string{"sum is 42", `a"b`, `a\b`, "é\u2028", "\x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got, err := expectedString(raw)
		if err != nil || got != want {
			t.Fatalf("expectedString(%s) = %q, %v; want %q", raw, got, err, want)
		}
	})
}
