package helikon

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon/internal/argcheck"
)

// toolNamePattern is the name shape every provider accepts.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// ToolOption configures a tool built by [NewTool].
type ToolOption interface {
	applyTool(*toolConfig)
}

type toolOptionFunc func(*toolConfig)

func (f toolOptionFunc) applyTool(c *toolConfig) { f(c) }

type toolConfig struct {
	effect  ToolEffect
	schema  *jsonschema.Schema
	honours bool
}

// WithEffect declares what the tool does to the world (default
// [SideEffect]); a tool that only reads should say [ReadOnly], so that plan
// mode runs it and accept-edits mode does not ask about it:
//
//	lookup, err := helikon.NewTool("lookup_order", "Look an order up.", lookupOrder,
//		helikon.WithEffect(helikon.ReadOnly))
func WithEffect(e ToolEffect) ToolOption { return toolOptionFunc(func(c *toolConfig) { c.effect = e }) }

// WithInputSchema replaces the schema derived from the argument type. The
// arguments are then validated against this schema in full before decoding.
func WithInputSchema(s *jsonschema.Schema) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.schema = s })
}

// WithHonoursCancellation makes the tool a [CancelAwareTool] that makes the
// promise: its function returns promptly once its [ToolContext] is done.
// Leave it out for a function that can block on anything else (a lock, a
// channel, a call that takes no context).
func WithHonoursCancellation() ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.honours = true })
}

// NewTool builds a [Tool] from a Go function. The argument schema is derived
// from In (field descriptions come from `jsonschema:"…"` struct tags), and
// the model's arguments are validated against it before fn runs: a miss
// returns a [ToolError] of kind InvalidArgs, which the loop shows the model
// once. Out is marshalled to JSON as the tool's output ([ToolOutput] is
// returned as is). Options: [WithEffect], [WithInputSchema],
// [WithHonoursCancellation].
func NewTool[In, Out any](name, description string, fn func(tc *ToolContext, in In) (Out, error), opts ...ToolOption) (Tool, error) {
	if !toolNamePattern().MatchString(name) {
		return nil, fmt.Errorf("helikon: tool name %q must match %s", name, toolNamePattern())
	}
	if fn == nil {
		return nil, fmt.Errorf("helikon: tool %q: nil function", name)
	}
	var cfg toolConfig
	for _, o := range opts {
		o.applyTool(&cfg)
	}
	s, derived := cfg.schema, reflect.Type(nil) // the type s was derived from, if it was
	if s == nil {
		var err error
		if s, err = argcheck.SchemaFor[In](); err != nil {
			return nil, fmt.Errorf("helikon: tool %q: derive schema: %w", name, err)
		}
		derived = reflect.TypeFor[In]()
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("helikon: tool %q: arguments must be a JSON object (a Go struct), got schema type %q", name, s.Type)
	}
	checker, err := argcheck.New(s, derived)
	if err != nil {
		return nil, fmt.Errorf("helikon: tool %q: %w", name, err)
	}
	return &funcTool[In, Out]{name: name, desc: description, schema: s, checker: checker, effect: cfg.effect, honours: cfg.honours, fn: fn}, nil
}

// MustTool is like [NewTool] but panics on a construction error. It is meant
// for package-level tool variables, like regexp.MustCompile.
func MustTool[In, Out any](name, description string, fn func(tc *ToolContext, in In) (Out, error), opts ...ToolOption) Tool {
	t, err := NewTool(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

type funcTool[In, Out any] struct {
	name, desc string
	schema     *jsonschema.Schema
	checker    *argcheck.Checker
	effect     ToolEffect
	honours    bool
	fn         func(*ToolContext, In) (Out, error)
}

func (t *funcTool[In, Out]) Name() string                    { return t.name }
func (t *funcTool[In, Out]) Description() string             { return t.desc }
func (t *funcTool[In, Out]) InputSchema() *jsonschema.Schema { return t.schema }
func (t *funcTool[In, Out]) Effect() ToolEffect              { return t.effect }
func (t *funcTool[In, Out]) HonoursCancellation() bool       { return t.honours }

func (t *funcTool[In, Out]) Call(tc *ToolContext, args json.RawMessage) (ToolOutput, error) {
	var in In
	if errs := t.checker.Decode(args, &in); errs != nil {
		return ToolOutput{}, &ToolError{Kind: ToolInvalidArgs, Tool: t.name, SchemaErrors: errs}
	}
	out, err := t.fn(tc, in)
	if err != nil {
		return ToolOutput{}, err
	}
	switch o := any(out).(type) {
	case ToolOutput:
		return o, nil
	case json.RawMessage:
		return ToolOutput{Content: o}, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("marshal output: %w", err)
	}
	return ToolOutput{Content: b}, nil
}
