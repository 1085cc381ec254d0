package workflow

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// encodingJSON is what mergedOutput must write: encoding/json's encoding of
// the map with HTML escaping off.
func encodingJSON(t *testing.T, m map[string]string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mergeMap is mergedOutput of m's members, in the key order sortedBy gives.
func mergeMap(m map[string]string) string {
	keys := slices.Collect(maps.Keys(m))
	order := sortedBy(len(keys), func(i int) string { return keys[i] })
	return mergedOutput(len(order), func(k int) (string, string) {
		key := keys[order[k]]
		return key, m[key]
	})
}

func TestMergedOutput_WritesWhatEncodingJSONWrites(t *testing.T) {
	for _, m := range []map[string]string{
		{},
		{"a": "a", "b": "b", "c": "c"},
		{"z": "last", "A": "upper first", "é": "non-ASCII key"},
		{"quotes": `say "hi" \ bye`, "controls": "\b\f\n\r\t\x00\x1f\x7f", "html": "<a href='x'>&</a>"},
		{"bad utf-8": "\xff\xfe ok \xc3", "separators": "a\u2028b\u2029c", "emoji": "🙂 naïve"},
	} {
		if got, want := mergeMap(m), encodingJSON(t, m); got != want {
			t.Errorf("mergedOutput(%q) = %s, want %s", m, got, want)
		}
	}
}

func FuzzMergedOutput_AgreesWithEncodingJSON(f *testing.F) {
	f.Add("a", "plain", "b", "line\nbreak \"quoted\" <tag> \u2028 \xff")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		m := map[string]string{k1: v1, k2: v2}
		if got, want := mergeMap(m), encodingJSON(t, m); got != want {
			t.Fatalf("mergedOutput(%q) = %s, want %s", m, got, want)
		}
	})
}
