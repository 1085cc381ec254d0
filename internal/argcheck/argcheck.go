// Package argcheck validates a JSON value (a tool call's arguments, a
// structured output) against a JSON Schema, and decodes it: the core's
// function tools and output types run every value through a [Checker].
package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/internal/jsonscan"
)

// Checker validates a JSON value against a schema. When the schema was
// derived from a flat Go struct, a zero-allocation scan proves validity
// while it decodes each value into its field (the scan enforces required
// keys, non-null values, no unknown keys and the JSON kind of each value;
// the decode the Go-implied bounds). A value the one pass does not decode
// itself (an escaped string, say) leaves the decoding to encoding/json
// after the scan, and anything the scan cannot prove falls back to full
// JSON-Schema validation, which also produces the error messages the model
// sees.
type Checker struct {
	resolved *jsonschema.Resolved
	flat     *flatObject
}

// New returns the checker of s. derived is the Go type values decode into
// when s was derived from it ([SchemaFor]); a flat struct's values then
// take the fast path. nil: s was given.
func New(s *jsonschema.Schema, derived reflect.Type) (*Checker, error) {
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	c := &Checker{resolved: rs}
	if derived != nil {
		c.flat = flatObjectOf(s)
		c.flat.bind(derived)
	}
	return c, nil
}

// Decode validates data and decodes it into dst (a pointer to a value of
// the derived type). It returns the schema errors on a miss.
func (c *Checker) Decode(data []byte, dst any) []string {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if f := c.flat; f != nil {
		if f.fields {
			v := reflect.ValueOf(dst).Elem()
			if f.scan(data, v) {
				return nil
			}
			v.SetZero()
		}
		if f.scan(data, reflect.Value{}) {
			if err := json.Unmarshal(data, dst); err == nil {
				return nil
			}
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
	// fields is set when every property has a field of the derived Go
	// type that scan can decode into (see bind).
	fields bool
}

type flatProp struct {
	name     []byte
	kind     byte // 's' string, 'n' number, 'i' integer, 'b' boolean
	nullable bool
	// field is the index of the property's field in the derived struct,
	// and fkind its kind, once bound.
	field int
	fkind reflect.Kind
}

// bind maps each property to the field of t (a struct) encoding/json
// would decode it into, and sets f.fields when every property has a plain
// field of a scalar kind: a string, an integer, a float or a bool, not a
// pointer, not promoted from an embedded struct. f may be nil.
func (f *flatObject) bind(t reflect.Type) {
	if f == nil || t.Kind() != reflect.Struct {
		return
	}
	names := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return // promoted fields: leave it to encoding/json
		}
		if !sf.IsExported() {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		if _, dup := names[name]; dup {
			return
		}
		names[name] = i
	}
	for k := range f.props {
		p := &f.props[k]
		i, ok := names[string(p.name)]
		if !ok || p.nullable {
			return
		}
		fk := t.Field(i).Type.Kind()
		switch {
		case p.kind == 's' && fk == reflect.String,
			p.kind == 'b' && fk == reflect.Bool,
			(p.kind == 'i' || p.kind == 'n') && (isInt(fk) || isUint(fk) || fk == reflect.Float64 || fk == reflect.Float32):
		default:
			return
		}
		p.field, p.fkind = i, fk
	}
	f.fields = true
}

func isInt(k reflect.Kind) bool  { return k >= reflect.Int && k <= reflect.Int64 }
func isUint(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uint64 }

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
// With a valid dst (the derived struct, addressable; f.fields set) it also
// decodes each value into its field, and reports false for a value it
// does not decode itself as encoding/json would (an escaped string, a
// number out of its field's range), leaving dst partly written.
func (f *flatObject) scan(data []byte, dst reflect.Value) bool {
	decode := dst.IsValid()
	i := jsonscan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(data, i+1)
	var seen uint64
	if i < len(data) && data[i] == '}' {
		return f.required == 0 && jsonscan.SkipSpace(data, i+1) == len(data)
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
		i = jsonscan.SkipSpace(data, j+1)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = jsonscan.SkipSpace(data, i+1)
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
			start, plain := i, true
			for i < len(data) && data[i] != '"' {
				switch b := data[i]; {
				case b == '\\':
					plain = false
					i++
				case b < 0x20 || b >= 0x80:
					plain = false
				}
				i++
			}
			if i >= len(data) {
				return false
			}
			if decode {
				if !plain {
					return false // escapes, control bytes, UTF-8: encoding/json decides
				}
				dst.Field(p.field).SetString(string(data[start:i]))
			}
			i++
		case c == 't' || c == 'f':
			if p.kind != 'b' {
				return false
			}
			start := i
			for i < len(data) && data[i] >= 'a' && data[i] <= 'z' {
				i++
			}
			if decode {
				switch string(data[start:i]) {
				case "true":
					dst.Field(p.field).SetBool(true)
				case "false":
					dst.Field(p.field).SetBool(false)
				default:
					return false
				}
			}
		case c == 'n':
			if !p.nullable || decode {
				return false
			}
			i += 4
		case c == '-' || (c >= '0' && c <= '9'):
			if p.kind != 'n' && p.kind != 'i' {
				return false
			}
			start := i
			for i < len(data) && strings.IndexByte("+-0123456789.eE", data[i]) >= 0 {
				i++
			}
			if decode && !setNumber(dst.Field(p.field), p.fkind, data[start:i]) {
				return false
			}
		default:
			return false
		}
		i = jsonscan.SkipSpace(data, i)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return seen&f.required == f.required && jsonscan.SkipSpace(data, i+1) == len(data)
		}
		if data[i] != ',' {
			return false
		}
		i = jsonscan.SkipSpace(data, i+1)
	}
}

// SchemaFor derives the JSON Schema of T.
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	var zero T
	t := reflect.TypeOf(&zero).Elem()
	return jsonschema.ForType(t, &jsonschema.ForOptions{})
}

// setNumber decodes the JSON number num into v, a field of kind k, as
// encoding/json would; false when num is not a JSON number or does not
// fit the field (encoding/json then reports it).
func setNumber(v reflect.Value, k reflect.Kind, num []byte) bool {
	integral, ok := jsonscan.Number(num)
	if !ok {
		return false
	}
	s := unsafeString(num)
	switch {
	case isInt(k):
		if !integral {
			return false
		}
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(n)
	case isUint(k):
		if !integral || num[0] == '-' {
			return false
		}
		n, err := strconv.ParseUint(s, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetUint(n)
	default:
		x, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetFloat(x)
	}
	return true
}

// unsafeString views b as a string for the parse functions, which keep
// nothing of it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
