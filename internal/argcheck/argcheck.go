// Package argcheck validates a JSON value (a tool call's arguments, a
// structured output) against a JSON Schema, and decodes it: the core's
// function tools and output types run every value through a [Checker].
package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Checker validates a JSON value against a schema. When the schema was
// derived from a flat Go struct, a zero-allocation scan plus the decode into
// the struct proves validity (decoding enforces the types and the Go-implied
// bounds; the scan enforces required keys, non-null values and no unknown
// keys). Anything the fast path cannot prove falls back to full JSON-Schema
// validation, which also produces the error messages the model sees.
type Checker struct {
	resolved *jsonschema.Resolved
	flat     *flatObject
}

// New returns the checker of s. derived says s was derived from the Go
// type values decode into ([SchemaFor]), which lets a flat struct's values
// take the fast path.
func New(s *jsonschema.Schema, derived bool) (*Checker, error) {
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	c := &Checker{resolved: rs}
	if derived {
		c.flat = flatObjectOf(s)
	}
	return c, nil
}

// Decode validates data and decodes it into dst (a pointer). It returns the
// schema errors on a miss.
func (c *Checker) Decode(data []byte, dst any) []string {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if c.flat != nil && c.flat.scan(data) {
		if err := json.Unmarshal(data, dst); err == nil {
			return nil
		}
	}
	if errs := c.Validate(data); errs != nil {
		return errs
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// Validate checks data against the schema without decoding it anywhere.
func (c *Checker) Validate(data []byte) []string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return []string{"not valid JSON: " + err.Error()}
	}
	if err := c.resolved.Validate(v); err != nil {
		return splitErrors(err)
	}
	return nil
}

func splitErrors(err error) []string {
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			// The validator prints a JSON null as the zero reflect.Value.
			out = append(out, strings.ReplaceAll(line, "<invalid reflect.Value>", "null"))
		}
	}
	return out
}

// flatObject is a schema for an object whose properties are all scalars.
type flatObject struct {
	props    []flatProp
	required uint64 // bit i set when props[i] is required
}

type flatProp struct {
	name     []byte
	kind     byte // 's' string, 'n' number, 'i' integer, 'b' boolean
	nullable bool
}

func flatObjectOf(s *jsonschema.Schema) *flatObject {
	if s.Type != "object" || len(s.Properties) == 0 || len(s.Properties) > 64 ||
		s.AdditionalProperties == nil || len(s.PatternProperties) > 0 {
		return nil
	}
	f := &flatObject{}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	for name, p := range s.Properties {
		kind, nullable, ok := scalarKind(p)
		if !ok {
			return nil
		}
		if req[name] {
			f.required |= 1 << len(f.props)
		}
		f.props = append(f.props, flatProp{name: []byte(name), kind: kind, nullable: nullable})
	}
	return f
}

func scalarKind(p *jsonschema.Schema) (kind byte, nullable, ok bool) {
	if p.Enum != nil || p.Const != nil || p.Pattern != "" || p.MinLength != nil || p.MaxLength != nil ||
		p.Format != "" || p.Ref != "" || p.AnyOf != nil || p.OneOf != nil || p.AllOf != nil || p.Not != nil {
		return 0, false, false
	}
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	for _, t := range types {
		switch t {
		case "null":
			nullable = true
		case "string":
			kind = 's'
		case "number":
			kind = 'n'
		case "integer":
			kind = 'i'
		case "boolean":
			kind = 'b'
		default:
			return 0, false, false
		}
	}
	return kind, nullable, kind != 0
}

// scan reports whether data is an object that has every required key, no
// unknown key, and values whose JSON kind matches the property's type.
func (f *flatObject) scan(data []byte) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipWS(data, i+1)
	var seen uint64
	if i < len(data) && data[i] == '}' {
		return f.required == 0 && skipWS(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		start := i + 1
		j := start
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				return false // escaped keys take the slow path
			}
			j++
		}
		if j >= len(data) {
			return false
		}
		key := data[start:j]
		idx := -1
		for k := range f.props {
			if bytes.Equal(f.props[k].name, key) {
				idx = k
				break
			}
		}
		if idx < 0 {
			return false
		}
		seen |= 1 << idx
		i = skipWS(data, j+1)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWS(data, i+1)
		if i >= len(data) {
			return false
		}
		p := &f.props[idx]
		switch c := data[i]; {
		case c == '"':
			if p.kind != 's' {
				return false
			}
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return false
			}
			i++
		case c == 't' || c == 'f':
			if p.kind != 'b' {
				return false
			}
			for i < len(data) && data[i] >= 'a' && data[i] <= 'z' {
				i++
			}
		case c == 'n':
			if !p.nullable {
				return false
			}
			i += 4
		case c == '-' || (c >= '0' && c <= '9'):
			if p.kind != 'n' && p.kind != 'i' {
				return false
			}
			for i < len(data) && strings.IndexByte("+-0123456789.eE", data[i]) >= 0 {
				i++
			}
		default:
			return false
		}
		i = skipWS(data, i)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return seen&f.required == f.required && skipWS(data, i+1) == len(data)
		}
		if data[i] != ',' {
			return false
		}
		i = skipWS(data, i+1)
	}
}

func skipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SchemaFor derives the JSON Schema of T.
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	var zero T
	t := reflect.TypeOf(&zero).Elem()
	return jsonschema.ForType(t, &jsonschema.ForOptions{})
}
