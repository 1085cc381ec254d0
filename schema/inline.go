package schema

import (
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxInlineDepth bounds how deep nested $ref expansion goes; a recursive
// type is cut off well before this, so reaching it means a pathological
// schema rather than a real one.
const maxInlineDepth = 32

// maxInlineNodes bounds how many subschemas inlining may produce. The
// depth bound alone does not bound the size: definitions that each refer
// twice to the next fan out into 2^depth subschemas, so a tool schema from
// an untrusted server could otherwise take seconds to minutes of CPU and
// as much memory. Real tool schemas inline to a few hundred.
const maxInlineNodes = 20000

// InlineRefs returns a copy of s in which every local $ref ("#", "#/$defs/X"
// or "#/definitions/X") is replaced by the schema it names, and $defs and
// definitions are dropped. A recursive reference cannot be inlined; where a
// type refers back to itself the recursion is cut with the permissive schema
// {"type": "object"} (the reference always names an object in the types that
// recurse: trees, linked lists), as providers without $ref support expect.
// A $ref that is not local, or names a missing definition, is an [*Error],
// as is a schema whose references expand to more than 20,000 subschemas.
func InlineRefs(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, &Error{Reason: "nil schema"}
	}
	root := s.CloneSchemas()
	in := &inliner{root: root}
	out, err := in.node(root, "", nil, 0)
	if err != nil {
		return nil, err
	}
	out.Defs, out.Definitions = nil, nil
	return out, nil
}

type inliner struct {
	root *jsonschema.Schema
	// nodes counts the subschemas produced so far.
	nodes int
}

func (in *inliner) lookup(ref, path string) (*jsonschema.Schema, error) {
	switch {
	case ref == "#":
		return in.root, nil
	case strings.HasPrefix(ref, "#/$defs/"):
		if d := in.root.Defs[unescape(ref[len("#/$defs/"):])]; d != nil {
			return d, nil
		}
	case strings.HasPrefix(ref, "#/definitions/"):
		if d := in.root.Definitions[unescape(ref[len("#/definitions/"):])]; d != nil {
			return d, nil
		}
	default:
		return nil, &Error{Path: path, Reason: "non-local $ref " + ref}
	}
	return nil, &Error{Path: path, Reason: "$ref " + ref + " names no definition"}
}

// node returns s with its refs inlined. stack holds the refs being expanded
// on the current path, to detect recursion.
func (in *inliner) node(s *jsonschema.Schema, path string, stack []string, depth int) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, nil
	}
	if in.nodes++; in.nodes > maxInlineNodes {
		return nil, &Error{Path: path, Reason: "the schema expands to more than " + strconv.Itoa(maxInlineNodes) + " subschemas when its $refs are inlined"}
	}
	if depth > maxInlineDepth {
		return &jsonschema.Schema{Type: "object"}, nil
	}
	if s.Ref != "" {
		for _, r := range stack {
			if r == s.Ref {
				return &jsonschema.Schema{Type: "object", Description: s.Description}, nil
			}
		}
		target, err := in.lookup(s.Ref, path)
		if err != nil {
			return nil, err
		}
		expanded := target.CloneSchemas()
		expanded.Defs, expanded.Definitions = nil, nil
		if s.Description != "" {
			expanded.Description = s.Description
		}
		return in.node(expanded, path, append(stack, s.Ref), depth+1)
	}
	out := s.CloneSchemas()
	out.Ref = ""
	var err error
	for name, p := range s.Properties {
		if out.Properties[name], err = in.node(p, path+"/properties/"+escape(name), stack, depth+1); err != nil {
			return nil, err
		}
	}
	if out.Items, err = in.node(s.Items, path+"/items", stack, depth+1); err != nil {
		return nil, err
	}
	if out.AdditionalProperties, err = in.node(s.AdditionalProperties, path+"/additionalProperties", stack, depth+1); err != nil {
		return nil, err
	}
	for _, l := range []struct {
		key      string
		src, dst []*jsonschema.Schema
	}{{"anyOf", s.AnyOf, out.AnyOf}, {"oneOf", s.OneOf, out.OneOf}, {"allOf", s.AllOf, out.AllOf}, {"prefixItems", s.PrefixItems, out.PrefixItems}} {
		for i, sub := range l.src {
			if l.dst[i], err = in.node(sub, path+"/"+l.key+"/"+strconv.Itoa(i), stack, depth+1); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
