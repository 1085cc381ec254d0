package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Strict returns a copy of s that satisfies OpenAI's strict structured-output
// rules:
//
//   - every object schema gets additionalProperties: false;
//   - every property is listed in required, in declaration order;
//   - a property that was optional becomes nullable, so the model can still
//     leave it out by sending null ("type": [T, "null"], or anyOf with
//     {"type": "null"} when the property is a $ref or has no type);
//   - oneOf becomes anyOf, which strict mode supports;
//   - the schemas under $defs (and draft-07 definitions) are rewritten by the
//     same rules, and $ref to them is kept, so recursive and shared types
//     keep working.
//
// Strict rejects, with an [*Error], objects whose additionalProperties or
// patternProperties admit extra keys (a Go map, for example): closing them
// would reject every value the original schema accepted.
func Strict(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, &Error{Reason: "nil schema"}
	}
	out := s.CloneSchemas()
	if err := strictNode(out, ""); err != nil {
		return nil, err
	}
	return out, nil
}

func strictNode(s *jsonschema.Schema, path string) error {
	if s == nil {
		return nil
	}
	if isObject(s) {
		if s.PatternProperties != nil {
			return &Error{Path: path, Reason: "patternProperties cannot be closed in strict mode"}
		}
		if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) {
			return &Error{Path: path, Reason: "additionalProperties other than false (a map type) is not allowed in strict mode"}
		}
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		names := propertyNames(s)
		for _, name := range names {
			if !slices.Contains(s.Required, name) {
				s.Properties[name] = nullable(s.Properties[name])
			}
		}
		s.Required = names
	}
	if len(s.OneOf) > 0 {
		s.AnyOf = append(s.AnyOf, s.OneOf...)
		s.OneOf = nil
	}
	for name, p := range s.Properties {
		if err := strictNode(p, path+"/properties/"+escape(name)); err != nil {
			return err
		}
	}
	for name, d := range s.Defs {
		if err := strictNode(d, path+"/$defs/"+escape(name)); err != nil {
			return err
		}
	}
	for name, d := range s.Definitions {
		if err := strictNode(d, path+"/definitions/"+escape(name)); err != nil {
			return err
		}
	}
	if err := strictNode(s.Items, path+"/items"); err != nil {
		return err
	}
	for _, list := range []struct {
		key     string
		schemas []*jsonschema.Schema
	}{{"anyOf", s.AnyOf}, {"allOf", s.AllOf}, {"prefixItems", s.PrefixItems}} {
		for i, sub := range list.schemas {
			if err := strictNode(sub, path+"/"+list.key+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// propertyNames lists s's properties in declaration order (PropertyOrder,
// which jsonschema.For fills from the struct), then any others sorted, so the
// required list is deterministic.
func propertyNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// nullable returns p widened to also accept null.
func nullable(p *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case p == nil:
		return &jsonschema.Schema{Type: "null"}
	case p.Type == "null" || slices.Contains(p.Types, "null"):
		return p
	case p.Ref == "" && p.Type != "":
		p.Types = []string{p.Type, "null"}
		p.Type = ""
		if p.Enum != nil && !slices.Contains(p.Enum, any(nil)) {
			p.Enum = append(p.Enum, nil)
		}
		return p
	case p.Ref == "" && len(p.Types) > 0:
		p.Types = append(p.Types, "null")
		if p.Enum != nil && !slices.Contains(p.Enum, any(nil)) {
			p.Enum = append(p.Enum, nil)
		}
		return p
	}
	// A $ref, a combinator or an untyped schema: say "this or null". The
	// description moves to the wrapper, where models read it.
	wrapped := &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}, Description: p.Description}
	if p.Ref != "" {
		p.Description = ""
	}
	return wrapped
}

func isObject(s *jsonschema.Schema) bool {
	return s.Type == "object" || slices.Contains(s.Types, "object") || (s.Type == "" && s.Types == nil && s.Properties != nil)
}

// isFalse reports whether s is the schema false (jsonschema-go spells it
// {"not": {}} in memory).
func isFalse(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// escape encodes a JSON Pointer token.
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
