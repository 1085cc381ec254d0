package bedrock_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/provider/bedrock"
)

func TestRewriteToolSchema_InlinesCollapsesAndStrips(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"tagged union collapses with the tag as an enum",
			`{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}`,
			`{"type":"object","required":["kind"],"properties":{"kind":{"enum":["circle","square"]},"r":{"type":"number"},"side":{"type":"number"}}}`},
		{"generic struct via $defs is inlined",
			`{"$defs":{"PageOfString":{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}}}},"type":"object","properties":{"page":{"$ref":"#/$defs/PageOfString"}}}`,
			`{"type":"object","properties":{"page":{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}}}}}`},
		{"recursive type ends in a permissive object",
			`{"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},"$ref":"#/$defs/Node"}`,
			`{"type":"object","properties":{"children":{"type":"array","items":{"type":"object"}}}}`},
		{"meta keywords stripped",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"when":{"type":"string","format":"date-time","examples":["2026-01-01T00:00:00Z"],"default":"x"}}}`,
			`{"type":"object","properties":{"when":{"type":"string"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.in), &s); err != nil {
				t.Fatal(err)
			}
			got, err := bedrock.RewriteToolSchema(&s, false)
			if err != nil {
				t.Fatal(err)
			}
			var want jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(&want)
			if !bytes.Equal(g, w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

// The Go types tool parameters are derived from, the way tools are: with
// jsonschema-go's jsonschema.For.
type (
	circle struct {
		Radius float64 `json:"radius"`
	}
	square struct {
		Side  float64 `json:"side"`
		Label string  `json:"label,omitempty"`
	}
	page[T any] struct {
		Items []T     `json:"items"`
		Next  *string `json:"next,omitempty"`
	}
	treeNode struct {
		Name     string      `json:"name"`
		Children []*treeNode `json:"children,omitempty"`
	}
	// treeFields has treeNode's fields under another type, so jsonschema.For
	// (which refuses a cycle) can derive the root while treeNode itself
	// maps to a $ref back to it.
	treeFields treeNode
)

// taggedUnion builds a union of Go types the way the project's schemas
// carry one (server/openapi.go): each variant derived by jsonschema.For,
// its tag a required const property, kept under $defs and named by oneOf.
func taggedUnion(t *testing.T, tag string, variants map[string]*jsonschema.Schema, order ...string) *jsonschema.Schema {
	t.Helper()
	u := &jsonschema.Schema{Defs: map[string]*jsonschema.Schema{}}
	for _, name := range order {
		v := variants[name]
		v.Properties[tag] = &jsonschema.Schema{Type: "string", Const: jsonschema.Ptr[any](name)}
		v.Required = append([]string{tag}, v.Required...)
		v.PropertyOrder = append([]string{tag}, v.PropertyOrder...)
		u.Defs[name] = v
		u.OneOf = append(u.OneOf, &jsonschema.Schema{Ref: "#/$defs/" + name})
	}
	return u
}

func mustFor[T any](t *testing.T, opts *jsonschema.ForOptions) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.For[T](opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chain is a schema whose definitions L0 … Ln-1 each hold the next under
// "next" (no cycle, so only InlineRefs's depth bound stops it), the last a
// string.
func chain(n int) *jsonschema.Schema {
	s := &jsonschema.Schema{Ref: "#/$defs/L0", Defs: map[string]*jsonschema.Schema{}}
	for i := range n - 1 {
		s.Defs["L"+strconv.Itoa(i)] = &jsonschema.Schema{Type: "object",
			Properties: map[string]*jsonschema.Schema{"next": {Ref: "#/$defs/L" + strconv.Itoa(i+1)}}}
	}
	s.Defs["L"+strconv.Itoa(n-1)] = &jsonschema.Schema{Type: "string"}
	return s
}

// nested is levels objects, each holding the next under "next", around
// leaf.
func nested(levels int, leaf string) string {
	out := leaf
	for range levels {
		out = `{"type":"object","properties":{"next":` + out + `}}`
	}
	return out
}

func TestRewriteToolSchema_SchemasJsonschemaGoDerives(t *testing.T) {
	shapes := func() *jsonschema.Schema {
		return taggedUnion(t, "kind", map[string]*jsonschema.Schema{"circle": mustFor[circle](t, nil), "square": mustFor[square](t, nil)}, "circle", "square")
	}
	tree := mustFor[treeFields](t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[treeNode](): {Ref: "#"}}})
	tests := []struct {
		name   string
		in     *jsonschema.Schema
		strict bool
		want   string
	}{
		// The branches are closed (additionalProperties false); the
		// collapsed object is not, which accepts every value a branch does.
		{"tagged union of derived structs collapses, the tag an enum", shapes(), false,
			`{"type":"object","required":["kind"],"properties":{"kind":{"type":"string","enum":["circle","square"]},"radius":{"type":"number"},"side":{"type":"number"},"label":{"type":"string"}}}`},
		{"tagged union under strict: every property required, the optional one nullable", shapes(), true,
			`{"type":"object","required":["kind","radius","side","label"],"properties":{"kind":{"type":"string","enum":["circle","square"]},"radius":{"type":["number","null"]},"side":{"type":["number","null"]},"label":{"type":["string","null"]}},"additionalProperties":false}`},
		{"generic struct", mustFor[page[circle]](t, nil), false,
			`{"type":"object","required":["items"],"properties":{"items":{"type":["null","array"],"items":{"type":"object","required":["radius"],"properties":{"radius":{"type":"number"}},"additionalProperties":false}},"next":{"type":["null","string"]}},"additionalProperties":false}`},
		{"recursive type: the second level back is a permissive object", tree, false,
			`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"children":{"type":["null","array"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"children":{"type":["null","array"],"items":{"type":"object"}}},"additionalProperties":false}}},"additionalProperties":false}`},
		// Strict mode admits no open object, so the cut is closed too: below
		// it the model can send only {}.
		{"recursive type under strict: the cut is closed", tree, true,
			`{"type":"object","required":["name","children"],"properties":{"name":{"type":"string"},"children":{"type":["null","array"],"items":{"type":"object","required":["name","children"],"properties":{"name":{"type":"string"},"children":{"type":["null","array"],"items":{"type":"object","additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}`},
		// schema.InlineRefs stops past 32 levels of nesting, each $ref and
		// each property a level: 16 definitions in, what is left is a
		// permissive object however deep the definitions go.
		{"definitions nested past the depth bound end in a permissive object", chain(40), false, nested(16, `{"type":"object"}`)},
		{"definitions inside the bound are inlined whole", chain(10), false, nested(9, `{"type":"string"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bedrock.RewriteToolSchema(tt.in, tt.strict)
			if err != nil {
				t.Fatal(err)
			}
			var want jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if g, w := canonical(t, got), canonical(t, &want); g != w {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

// canonical is s's JSON with object keys sorted, so property order does
// not count.
func canonical(t *testing.T, s *jsonschema.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	return string(bytes.TrimSpace(b))
}
