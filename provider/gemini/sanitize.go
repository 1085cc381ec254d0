package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/schema"
)

// openAPIKeys are the members of Gemini's Schema object (the OpenAPI
// subset responseSchema takes) that the sanitiser keeps; every other
// keyword ($schema, additionalProperties, patternProperties, examples,
// default, …) is dropped.
var openAPIKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "items": true, "minItems": true, "maxItems": true, "properties": true,
	"required": true, "minProperties": true, "maxProperties": true, "minLength": true,
	"maxLength": true, "pattern": true, "minimum": true, "maximum": true, "anyOf": true,
	"propertyOrdering": true,
}

// knownFormats are the formats Gemini recognises, by type; others are
// dropped rather than rejected by the API.
var knownFormats = map[string]map[string]bool{
	"STRING":  {"enum": true, "date-time": true},
	"NUMBER":  {"float": true, "double": true},
	"INTEGER": {"int32": true, "int64": true},
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
		if !openAPIKeys[k] || k == "type" {
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
			if f, ok := x.(string); ok && knownFormats[t][f] {
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
