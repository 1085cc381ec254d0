package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/schema"
)

func parse(t *testing.T, src string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func canon(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	_ = json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

func TestStrict_ClosesObjectsRequiresAllAndNullsOptionals(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"flat object",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
			`{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},"required":["a","b"],"type":"object"}`},
		{"nested object and array items",
			`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}}},"required":["xs"]}`,
			`{"additionalProperties":false,"properties":{"xs":{"items":{"additionalProperties":false,"properties":{"k":{"type":["string","null"]}},"required":["k"],"type":"object"},"type":"array"}},"required":["xs"],"type":"object"}`},
		{"$defs rewritten and $ref kept",
			`{"type":"object","properties":{"owner":{"$ref":"#/$defs/Person"},"pet":{"$ref":"#/$defs/Person"}},"required":["owner"],"$defs":{"Person":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}}}`,
			`{"$defs":{"Person":{"additionalProperties":false,"properties":{"age":{"type":["integer","null"]},"name":{"type":"string"}},"required":["age","name"],"type":"object"}},"additionalProperties":false,"properties":{"owner":{"$ref":"#/$defs/Person"},"pet":{"anyOf":[{"$ref":"#/$defs/Person"},{"type":"null"}]}},"required":["owner","pet"],"type":"object"}`},
		{"recursive type through $ref",
			`{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/Node"}},"required":["v"]}}}`,
			`{"$defs":{"Node":{"additionalProperties":false,"properties":{"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]},"v":{"type":"integer"}},"required":["next","v"],"type":"object"}},"$ref":"#/$defs/Node"}`},
		{"optional enum admits null",
			`{"type":"object","properties":{"u":{"type":"string","enum":["c","f"]}}}`,
			`{"additionalProperties":false,"properties":{"u":{"enum":["c","f",null],"type":["string","null"]}},"required":["u"],"type":"object"}`},
		{"oneOf becomes anyOf",
			`{"oneOf":[{"type":"string"},{"type":"integer"}]}`,
			`{"anyOf":[{"type":"string"},{"type":"integer"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := parse(t, tt.in)
			before := canon(t, in)
			got, err := schema.Strict(in)
			if err != nil {
				t.Fatal(err)
			}
			if g := canon(t, got); g != tt.want {
				t.Errorf("Strict =\n%s\nwant\n%s", g, tt.want)
			}
			if after := canon(t, in); after != before {
				t.Errorf("input mutated:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

func TestStrict_RequiredFollowsGoFieldOrder(t *testing.T) {
	type Out struct {
		Zeta  string `json:"zeta"`
		Alpha int    `json:"alpha,omitempty"`
	}
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := schema.Strict(s)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Required) != "[zeta alpha]" {
		t.Errorf("required = %v, want [zeta alpha]", got.Required)
	}
}

func TestStrict_RejectsOpenMapsRatherThanLoseThem(t *testing.T) {
	for _, src := range []string{
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
	} {
		_, err := schema.Strict(parse(t, src))
		var se *schema.Error
		if !errors.Is(err, schema.ErrUnsupported) || !errors.As(err, &se) {
			t.Errorf("Strict(%s) err = %v, want *schema.Error", src, err)
		}
	}
}

func TestInlineRefs_ExpandsDefinitionsAndCutsRecursion(t *testing.T) {
	in := parse(t, `{"type":"object","properties":{"owner":{"$ref":"#/$defs/Person","description":"who owns it"},"root":{"$ref":"#/$defs/Node"}},"$defs":{"Person":{"type":"object","properties":{"name":{"type":"string"}}},"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`)
	before := canon(t, in)
	got, err := schema.InlineRefs(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"owner":{"description":"who owns it","properties":{"name":{"type":"string"}},"type":"object"},"root":{"properties":{"kids":{"items":{"type":"object"},"type":"array"}},"type":"object"}},"type":"object"}`
	if g := canon(t, got); g != want {
		t.Errorf("InlineRefs =\n%s\nwant\n%s", g, want)
	}
	if canon(t, in) != before {
		t.Error("input mutated")
	}
	if _, err := schema.InlineRefs(parse(t, `{"$ref":"#/$defs/Missing"}`)); !errors.Is(err, schema.ErrUnsupported) {
		t.Errorf("missing def err = %v", err)
	}
	if _, err := schema.InlineRefs(parse(t, `{"$ref":"https://example.com/s.json"}`)); !errors.Is(err, schema.ErrUnsupported) {
		t.Errorf("remote ref err = %v", err)
	}
}

// The error names the JSON Pointer of the offending subschema, down to the
// branch of a combinator or the element of prefixItems.
func TestInlineRefs_ErrorPathIndexesIntoLists(t *testing.T) {
	tests := map[string]string{
		`{"anyOf":[{"type":"string"},{"$ref":"#/$defs/Missing"}]}`:                          "/anyOf/1",
		`{"properties":{"a":{"oneOf":[{"$ref":"#/$defs/Missing"}]}}}`:                       "/properties/a/oneOf/0",
		`{"type":"array","prefixItems":[{"type":"string"},{"type":"string"},{"$ref":"x"}]}`: "/prefixItems/2",
	}
	for src, want := range tests {
		_, err := schema.InlineRefs(parse(t, src))
		var se *schema.Error
		if !errors.As(err, &se) || se.Path != want {
			t.Errorf("InlineRefs(%s) err = %v, want one at %s", src, err, want)
		}
	}
}

func TestCollapseCombinators_FlattensTaggedUnions(t *testing.T) {
	in := parse(t, `{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
		{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}`)
	got, err := schema.CollapseCombinators(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"kind":{"enum":["circle","square"]},"r":{"type":"number"},"side":{"type":"number"}},"required":["kind"],"type":"object"}`
	if g := canon(t, got); g != want {
		t.Errorf("Collapse =\n%s\nwant\n%s", g, want)
	}
	nullable, _ := schema.CollapseCombinators(parse(t, `{"description":"maybe","anyOf":[{"type":"string"},{"type":"null"}]}`))
	if g := canon(t, nullable); g != `{"description":"maybe","type":"string"}` {
		t.Errorf("nullable collapse = %s", g)
	}
	onlyNull, _ := schema.CollapseCombinators(parse(t, `{"anyOf":[{"type":"null"}]}`))
	if g := canon(t, onlyNull); g != `{"type":"null"}` {
		t.Errorf("collapse of a null-only anyOf = %s, want {\"type\":\"null\"}", g)
	}
}

func TestStrip_RemovesKeywordsEverywhere(t *testing.T) {
	in := parse(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"d":{"type":"string","format":"date-time","examples":["x"]}}}`)
	got := schema.Strip(in, schema.KeywordSchema, schema.KeywordFormat, schema.KeywordExamples)
	if g := canon(t, got); g != `{"properties":{"d":{"type":"string"}},"type":"object"}` {
		t.Errorf("Strip = %s", g)
	}
	if in.Schema == "" {
		t.Error("input mutated")
	}
}

func ExampleStrict() {
	type Answer struct {
		City string `json:"city"`
		Note string `json:"note,omitempty"`
	}
	s, _ := jsonschema.For[Answer](nil)
	strict, _ := schema.Strict(s)
	b, _ := json.Marshal(strict)
	fmt.Println(string(b))
	// Output: {"type":"object","properties":{"city":{"type":"string"},"note":{"type":["string","null"]}},"required":["city","note"],"additionalProperties":false}
}
