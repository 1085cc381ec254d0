package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/schema"
)

// openAPIKey reports whether k is a member of Gemini's Schema object (the
// OpenAPI subset responseSchema takes) that the sanitiser keeps; every
// other keyword ($schema, additionalProperties, patternProperties,
// examples, default, …) is dropped. A switch, not a map built at package
// init, which every program linking the adapter would pay on each start.
func openAPIKey(k string) bool {
	switch k {
	case "type", "format", "title", "description", "nullable",
		"enum", "items", "minItems", "maxItems", "properties",
		"required", "minProperties", "maxProperties", "minLength",
		"maxLength", "pattern", "minimum", "maximum", "anyOf",
		"propertyOrdering":
		return true
	}
	return false
}

// knownFormat reports whether Gemini recognises format f for type t;
// other formats are dropped rather than rejected by the API.
func knownFormat(t, f string) bool {
	switch t {
	case "STRING":
		return f == "enum" || f == "date-time"
	case "NUMBER":
		return f == "float" || f == "double"
	case "INTEGER":
		return f == "int32" || f == "int64"
	}
	return false
}

// SanitizeSchema rewrites a JSON Schema into the OpenAPI subset Gemini's
// responseSchema accepts: $ref inlined (recursion cut to a plain object, see
// [schema.InlineRefs]), a ["T","null"] type made T with nullable, const made
// a one-value enum, oneOf renamed anyOf, unsupported keywords stripped and
// formats the API does not know for the type dropped. Type names are the
// API's upper-case enum values.
func SanitizeSchema(s *jsonschema.Schema) (map[string]any, error) {
	in, err := schema.InlineRefs(s)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return sanitize(v, 0)
}

// maxSanitizeDepth bounds nesting; InlineRefs has bounded it already, so
// this only guards the walk itself.
const maxSanitizeDepth = 64

func sanitize(v map[string]any, depth int) (map[string]any, error) {
	if depth > maxSanitizeDepth {
		return nil, fmt.Errorf("schema nested deeper than %d levels", maxSanitizeDepth)
	}
	out := map[string]any{}
	if c, ok := v["const"]; ok {
		v["enum"] = []any{c}
	}
	if one, ok := v["oneOf"]; ok {
		if _, has := v["anyOf"]; !has {
			v["anyOf"] = one
		}
	}
	switch t := v["type"].(type) {
	case string:
		out["type"] = strings.ToUpper(t)
	case []any:
		var types []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				if s == "null" {
					out["nullable"] = true
				} else {
					types = append(types, strings.ToUpper(s))
				}
			}
		}
		switch len(types) {
		case 0:
		case 1:
			out["type"] = types[0]
		default:
			// Several types: one branch each, the rest of the schema shared.
			branches := make([]any, 0, len(types))
			for _, t := range types {
				b := map[string]any{}
				for k, x := range v {
					b[k] = x
				}
				b["type"] = strings.ToLower(t)
				sb, err := sanitize(b, depth+1)
				if err != nil {
					return nil, err
				}
				branches = append(branches, sb)
			}
			res := map[string]any{"anyOf": branches}
			if out["nullable"] == true {
				res["nullable"] = true
			}
			return res, nil
		}
	}
	for k, x := range v {
		if !openAPIKey(k) || k == "type" {
			continue
		}
		switch k {
		case "properties":
			props, ok := x.(map[string]any)
			if !ok {
				continue
			}
			sp := make(map[string]any, len(props))
			for name, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					continue // true/false schemas have no equivalent
				}
				s, err := sanitize(pm, depth+1)
				if err != nil {
					return nil, err
				}
				sp[name] = s
			}
			out[k] = sp
		case "items":
			im, ok := x.(map[string]any)
			if !ok {
				continue
			}
			s, err := sanitize(im, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = s
		case "anyOf":
			arr, _ := x.([]any)
			var branches []any
			for _, b := range arr {
				bm, ok := b.(map[string]any)
				if !ok {
					continue
				}
				s, err := sanitize(bm, depth+1)
				if err != nil {
					return nil, err
				}
				branches = append(branches, s)
			}
			if len(branches) > 0 {
				out[k] = branches
			}
		case "format":
			t, _ := out["type"].(string)
			if f, ok := x.(string); ok && knownFormat(t, f) {
				out[k] = f
			}
		case "enum":
			// The API's enums are strings.
			arr, _ := x.([]any)
			vals := make([]any, 0, len(arr))
			for _, e := range arr {
				if s, ok := e.(string); ok {
					vals = append(vals, s)
				}
			}
			if len(vals) > 0 {
				out[k] = vals
			}
		default:
			out[k] = x
		}
	}
	return out, nil
}
