package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/schema"
)

// doubling returns a schema of n definitions each of which refers twice to
// the next: n levels of $ref fan out into 2^n subschemas when inlined.
func doubling(n int) string {
	var defs []string
	for i := range n {
		next := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i+1)
		if i == n-1 {
			next = `{"type":"string"}`
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":%s,"b":%s}}`, i, next, next))
	}
	return `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
}

// A tool schema comes from whoever serves the tool (an MCP server, say):
// one whose $refs fan out exponentially is refused, not expanded until
// memory runs out.
func TestInlineRefs_RefusesASchemaThatExpandsExponentially(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doubling(30)), &s); err != nil {
		t.Fatal(err)
	}
	_, err := schema.InlineRefs(&s)
	if !errors.Is(err, schema.ErrUnsupported) || !strings.Contains(err.Error(), "expands to more than") {
		t.Fatalf("err = %v, want the expansion bound", err)
	}
	// A small fan-out is still inlined.
	if err := json.Unmarshal([]byte(doubling(4)), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.InlineRefs(&s); err != nil {
		t.Fatalf("2^4 expansion: %v", err)
	}
}

// FuzzTransforms runs every rewrite on schemas decoded from arbitrary
// JSON: none may panic or run away, whatever the schema says.
func FuzzTransforms(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		`{"$ref":"#"}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
		`{"$ref":"#/definitions/x~1y","definitions":{"x/y":{"type":"integer"}}}`,
		`{"$ref":"http://example.com/s"}`,
		`{"anyOf":[{"type":"object","properties":{"k":{"const":"a"}}},{"type":"object","properties":{"k":{"const":"b"}}}]}`,
		`{"allOf":[{"oneOf":[{"type":"null"},{"$ref":"#"}]}]}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","patternProperties":{"^x":{}}}`,
		`{"type":["string","null"],"prefixItems":[{"$ref":"#"}],"items":{"$ref":"#"}}`,
		doubling(6),
		doubling(24),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s jsonschema.Schema
		if json.Unmarshal(data, &s) != nil {
			return
		}
		if in, err := schema.InlineRefs(&s); err == nil {
			_, _ = schema.CollapseCombinators(in)
		}
		_, _ = schema.Strict(&s)
		_ = schema.Strip(&s, schema.Keyword("format"), schema.Keyword("$schema"))
	})
}
