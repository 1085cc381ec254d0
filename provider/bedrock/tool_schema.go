package bedrock

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/schema"
)

// metaKeywords are the keywords Bedrock's tool-input validators reject or
// ignore; [RewriteToolSchema] strips them.
var metaKeywords = []schema.Keyword{schema.KeywordSchema, schema.KeywordID, schema.KeywordComment,
	schema.KeywordFormat, schema.KeywordExamples, schema.KeywordDefault, schema.KeywordPatternProp,
	schema.KeywordUnevaluated}

// RewriteToolSchema makes a tool's input schema one every Bedrock model
// accepts: $ref inlined (a recursive type cut to a permissive object),
// oneOf/anyOf/allOf collapsed into one object whose properties are the
// union and whose shared tag becomes an enum, and meta-keywords ($schema,
// format, examples, default, …) stripped. With strict it also applies
// [schema.Strict] (every property required, no additional properties);
// strict mode admits no open object, so the object that cuts a recursive
// type is closed too and admits only {} below the cut. The adapter runs it
// on every tool spec it sends, without strict.
func RewriteToolSchema(s *jsonschema.Schema, strict bool) (*jsonschema.Schema, error) {
	out, err := schema.InlineRefs(s)
	if err != nil {
		return nil, err
	}
	if out, err = schema.CollapseCombinators(out); err != nil {
		return nil, err
	}
	out = schema.Strip(out, metaKeywords...)
	if strict {
		if out, err = schema.Strict(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}
