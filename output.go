package helikon

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon/internal/argcheck"
)

// OutputType is a structured-output contract: the schema the final answer
// must match and a check that it decodes ([OutputTypeOf], [WithOutput]).
type OutputType struct {
	// Name is the schema name sent to providers.
	Name string
	// Schema is the raw schema; providers normalise it (package schema).
	// Replacing it after construction fails every [OutputType.Check]: the
	// check was built for the schema the constructor was given, and the
	// model would be asked for another.
	Schema *jsonschema.Schema
	// check validates an answer against Schema and decodes it into the Go
	// type when there is one. The constructors set it, rather than Check
	// calling the checker itself, so that only a program that builds an
	// output type links the JSON-Schema validator (0.15 MB of a binary).
	check func([]byte) []string
	// built is the schema check was built for.
	built *jsonschema.Schema
}

var nonNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]+`) })

// OutputTypeOf captures T's schema as an OutputType.
func OutputTypeOf[T any]() (*OutputType, error) {
	s, err := argcheck.SchemaFor[T]()
	if err != nil {
		return nil, fmt.Errorf("helikon: output type: %w", err)
	}
	name := cmp.Or(nonNameChars().ReplaceAllString(cmp.Or(s.Title, reflect.TypeFor[T]().Name()), "_"), "StructuredOutput")
	checker, err := argcheck.New(s, nil)
	if err != nil {
		return nil, fmt.Errorf("helikon: output type %s: %w", name, err)
	}
	return &OutputType{Name: name, Schema: s, built: s, check: func(b []byte) []string {
		if errs := checker.Validate(b); errs != nil {
			return errs
		}
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return []string{err.Error()}
		}
		return nil
	}}, nil
}

// NewOutputType builds an OutputType from a hand-written schema. A nil
// schema is refused with an error wrapping [ErrInvalidOption].
func NewOutputType(name string, s *jsonschema.Schema) (*OutputType, error) {
	if s == nil {
		return nil, fmt.Errorf("helikon: output type %s: %w: the schema is nil", name, ErrInvalidOption)
	}
	checker, err := argcheck.New(s, nil)
	if err != nil {
		return nil, fmt.Errorf("helikon: output type %s: %w", name, err)
	}
	return &OutputType{Name: name, Schema: s, built: s, check: checker.Validate}, nil
}

// ResponseFormat returns the strict JSON-Schema response format of o.
func (o *OutputType) ResponseFormat() *ResponseFormat {
	return &ResponseFormat{Type: FormatJSONSchema, Name: o.Name, Schema: o.Schema, Strict: true}
}

// Check validates text against the schema and returns the errors, or nil.
// An OutputType not built by [OutputTypeOf] or [NewOutputType], or whose
// Schema was replaced since, has no check that fits, and every text fails
// it.
func (o *OutputType) Check(text string) []string {
	if o.check == nil {
		return []string{"helikon: output type " + o.Name + " was not built by OutputTypeOf or NewOutputType, and checks nothing"}
	}
	if o.Schema != o.built {
		return []string{"helikon: output type " + o.Name + ": its Schema was replaced after construction; build a new one with NewOutputType"}
	}
	return o.check([]byte(text))
}
