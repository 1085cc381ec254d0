package schema

import "github.com/google/jsonschema-go/jsonschema"

// Keyword names a JSON Schema keyword [Strip] can remove.
type Keyword string

// The keywords providers most often reject.
const (
	KeywordSchema      Keyword = "$schema"
	KeywordID          Keyword = "$id"
	KeywordComment     Keyword = "$comment"
	KeywordTitle       Keyword = "title"
	KeywordDefault     Keyword = "default"
	KeywordExamples    Keyword = "examples"
	KeywordFormat      Keyword = "format"
	KeywordPattern     Keyword = "pattern"
	KeywordPatternProp Keyword = "patternProperties"
	KeywordUnevaluated Keyword = "unevaluatedProperties"
	KeywordAdditional  Keyword = "additionalProperties"
)

// Strip returns a copy of s with the given keywords removed from every
// subschema. Unknown keywords jsonschema-go keeps in Extra are removed by
// name too.
func Strip(s *jsonschema.Schema, keywords ...Keyword) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	out := s.CloneSchemas()
	strip(out, keywords)
	return out
}

func strip(s *jsonschema.Schema, kws []Keyword) {
	if s == nil {
		return
	}
	for _, k := range kws {
		switch k {
		case KeywordSchema:
			s.Schema = ""
		case KeywordID:
			s.ID = ""
		case KeywordComment:
			s.Comment = ""
		case KeywordTitle:
			s.Title = ""
		case KeywordDefault:
			s.Default = nil
		case KeywordExamples:
			s.Examples = nil
		case KeywordFormat:
			s.Format = ""
		case KeywordPattern:
			s.Pattern = ""
		case KeywordPatternProp:
			s.PatternProperties = nil
		case KeywordUnevaluated:
			s.UnevaluatedProperties = nil
		case KeywordAdditional:
			s.AdditionalProperties = nil
		}
		delete(s.Extra, string(k))
	}
	for _, p := range s.Properties {
		strip(p, kws)
	}
	for _, d := range s.Defs {
		strip(d, kws)
	}
	for _, d := range s.Definitions {
		strip(d, kws)
	}
	strip(s.Items, kws)
	strip(s.AdditionalProperties, kws)
	for _, l := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, sub := range l {
			strip(sub, kws)
		}
	}
}
