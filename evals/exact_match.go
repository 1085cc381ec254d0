package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// DefaultMaxOutputBytes bounds the final output that [ExactMatch] and
// [JSONSchema] parse as JSON.
const DefaultMaxOutputBytes = 4 << 20

// ExactMatch compares the final output with the case's expected value. An
// expected JSON string must equal the output exactly (after trimming
// surrounding white space, which models add freely); any other expected
// JSON value is compared structurally with the output parsed as JSON, so
// member order, spacing and number spelling (1 and 1.0) do not matter. A
// case without an expected value is skipped.
type ExactMatch struct{}

// NewExactMatch returns the exact-match evaluator.
func NewExactMatch() *ExactMatch { return &ExactMatch{} }

// Name returns "exact_match".
func (*ExactMatch) Name() string { return "exact_match" }

// Evaluate scores 1 for a match and 0 otherwise.
func (*ExactMatch) Evaluate(_ context.Context, c *Case, out *Outcome) (Score, error) {
	if len(c.Expected) == 0 {
		return Skip("case has no expected value"), nil
	}
	got := strings.TrimSpace(out.FinalOutput)
	if c.Expected[0] == '"' {
		want, err := expectedString(c.Expected)
		if err != nil {
			return Score{}, fmt.Errorf("expected: %w", err)
		}
		if got == strings.TrimSpace(want) {
			return Pass(1, ""), nil
		}
		return Fail(0, fmt.Sprintf("got %q, want %q", clip(got), clip(want))), nil
	}
	want, err := decodeJSON(c.Expected)
	if err != nil {
		return Score{}, fmt.Errorf("expected: %w", err)
	}
	if len(got) > DefaultMaxOutputBytes {
		return Fail(0, fmt.Sprintf("output of %d bytes is over the %d-byte limit", len(got), DefaultMaxOutputBytes)), nil
	}
	have, err := decodeJSON([]byte(got))
	if err != nil {
		return Fail(0, "output is not JSON: "+err.Error()), nil
	}
	if path, ok := jsonEqual(want, have, "$"); !ok {
		return Fail(0, "output differs at "+path), nil
	}
	return Pass(1, ""), nil
}

// expectedString decodes a JSON string; one without escapes, the common
// case, is its own bytes.
func expectedString(raw json.RawMessage) (string, error) {
	if n := len(raw); n >= 2 && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 {
		return string(raw[1 : n-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// jsonEqual compares two decoded JSON values; when they differ it returns
// the path of the first difference.
func jsonEqual(a, b any, path string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return path + "." + k, false
			}
			if p, ok := jsonEqual(xv, yv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for i := range x {
			if p, ok := jsonEqual(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return path, false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		if !okx || !oky {
			return path, x == y
		}
		return path, rx.Cmp(ry) == 0
	default: // string, bool, nil
		return path, a == b
	}
}

// clip shortens s for a one-line reason.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
