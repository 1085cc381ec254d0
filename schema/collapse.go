package schema

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// CollapseCombinators returns a copy of s in which oneOf, anyOf and allOf
// are removed for providers whose validators reject them:
//
//   - anyOf/oneOf of one schema and {"type": "null"} becomes that schema;
//   - a combinator whose branches are all objects (a tagged union) becomes
//     one object whose properties are the union of the branches'. A property
//     every branch pins with const or a one-value enum (the tag) becomes an
//     enum of the branch values. With allOf every branch's required
//     properties stay required; with anyOf/oneOf only those every branch
//     requires do;
//   - any other combinator keeps its first branch, the closest single
//     schema a provider without combinators can be given.
//
// Call [InlineRefs] first: branches that are $ref are not followed.
func CollapseCombinators(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, &Error{Reason: "nil schema"}
	}
	return collapse(s.CloneSchemas()), nil
}

func collapse(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	for name, p := range s.Properties {
		s.Properties[name] = collapse(p)
	}
	s.Items = collapse(s.Items)
	for name, d := range s.Defs {
		s.Defs[name] = collapse(d)
	}
	for _, kind := range []string{"allOf", "anyOf", "oneOf"} {
		var branches []*jsonschema.Schema
		switch kind {
		case "allOf":
			branches, s.AllOf = s.AllOf, nil
		case "anyOf":
			branches, s.AnyOf = s.AnyOf, nil
		case "oneOf":
			branches, s.OneOf = s.OneOf, nil
		}
		if len(branches) == 0 {
			continue
		}
		for i := range branches {
			branches[i] = collapse(branches[i])
		}
		s = merge(s, branches, kind == "allOf")
	}
	return s
}

func merge(s *jsonschema.Schema, branches []*jsonschema.Schema, all bool) *jsonschema.Schema {
	var nonNull []*jsonschema.Schema
	for _, b := range branches {
		if b.Type != "null" {
			nonNull = append(nonNull, b)
		}
	}
	switch len(nonNull) {
	case 0: // only null is allowed; there is no union to build
		return overlay(s, branches[0])
	case 1:
		return overlay(s, nonNull[0])
	}
	for _, b := range nonNull {
		if !isObject(b) {
			return overlay(s, nonNull[0])
		}
	}
	out := s.CloneSchemas()
	out.Type, out.Types = "object", nil
	if out.Properties == nil {
		out.Properties = map[string]*jsonschema.Schema{}
	}
	tags := map[string][]any{}
	var required []string
	for i, b := range nonNull {
		for _, name := range propertyNames(b) {
			p := b.Properties[name]
			if v, ok := pinned(p); ok {
				tags[name] = append(tags[name], v)
			}
			if _, seen := out.Properties[name]; !seen {
				out.Properties[name] = p
				out.PropertyOrder = append(out.PropertyOrder, name)
			}
		}
		switch {
		case all:
			for _, r := range b.Required {
				if !slices.Contains(required, r) {
					required = append(required, r)
				}
			}
		case i == 0:
			required = slices.Clone(b.Required)
		default:
			required = slices.DeleteFunc(required, func(r string) bool { return !slices.Contains(b.Required, r) })
		}
	}
	for name, vals := range tags {
		if len(vals) == len(nonNull) {
			p := out.Properties[name].CloneSchemas()
			p.Const, p.Enum = nil, vals
			out.Properties[name] = p
		}
	}
	for _, r := range s.Required {
		if !slices.Contains(required, r) {
			required = append(required, r)
		}
	}
	out.Required = required
	return out
}

// overlay returns b with s's own annotations and properties layered on top.
func overlay(s, b *jsonschema.Schema) *jsonschema.Schema {
	if s.Type == "" && s.Types == nil && s.Properties == nil {
		out := b.CloneSchemas()
		if s.Description != "" {
			out.Description = s.Description
		}
		if s.Title != "" {
			out.Title = s.Title
		}
		return out
	}
	return s
}

// pinned returns the single value p allows, if it is a const or one-value enum.
func pinned(p *jsonschema.Schema) (any, bool) {
	if p == nil {
		return nil, false
	}
	if p.Const != nil {
		return *p.Const, true
	}
	if len(p.Enum) == 1 {
		return p.Enum[0], true
	}
	return nil, false
}
