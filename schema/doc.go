// Package schema rewrites JSON Schemas into the dialects model providers
// accept. Every function takes a [*jsonschema.Schema] (from
// github.com/google/jsonschema-go, the library the core derives tool and
// output schemas with), leaves it untouched, and returns a new schema.
//
//   - [Strict] makes a schema acceptable to OpenAI's strict structured-output
//     mode: every object closed with additionalProperties false, every
//     property required, formerly optional properties made nullable. It
//     rewrites the schemas under $defs too and keeps $ref pointing at them.
//   - [InlineRefs] replaces local $ref with the schema it names, for
//     providers whose validators reject $ref/$defs.
//   - [CollapseCombinators] flattens oneOf/anyOf/allOf over objects into one
//     object, for providers that reject combinators.
//   - [Strip] removes keywords a provider rejects ($schema, format, …).
//
// A schema that cannot be rewritten without changing what it accepts is
// rejected with an [*Error] naming the JSON Pointer of the offending
// subschema, rather than silently loosened.
//
// The smallest use:
//
//	s, _ := jsonschema.For[Answer](nil)
//	strict, err := schema.Strict(s)
package schema
