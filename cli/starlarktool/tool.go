package starlarktool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
)

// Tool is a [helikon.Tool] backed by a Starlark script's run(args).
type Tool struct {
	name, desc string
	schema     *jsonschema.Schema
	prog       *Program
	lim        Limits
	readOnly   bool
}

// Option configures a [Tool].
type Option func(*Tool)

// WithLimits replaces the [DefaultLimits]; zero fields keep their default.
func WithLimits(l Limits) Option {
	return func(t *Tool) { t.lim = l.withDefaults() }
}

// WithReadOnly declares that the script changes nothing outside its own
// result, so [Tool.Effect] reports [helikon.ReadOnly] and read-only
// permission modes let the model call it.
func WithReadOnly() Option {
	return func(t *Tool) { t.readOnly = true }
}

// New compiles the script filename with source src into a tool named name
// whose arguments follow params, a JSON Schema object.
func New(name, description string, params map[string]any, filename, src string, opts ...Option) (*Tool, error) {
	t := &Tool{name: name, desc: description, lim: DefaultLimits()}
	for _, o := range opts {
		o(t)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("starlarktool: %s: params: %w", name, err)
	}
	t.schema = new(jsonschema.Schema)
	if err := json.Unmarshal(raw, t.schema); err != nil {
		return nil, fmt.Errorf("starlarktool: %s: params is not a JSON Schema: %w", name, err)
	}
	if _, err := t.schema.Resolve(nil); err != nil {
		return nil, fmt.Errorf("starlarktool: %s: params: %w", name, err)
	}
	if t.prog, err = compile(filename, src, t.lim); err != nil {
		return nil, err
	}
	return t, nil
}

// Compile parses filename's src, runs its top level in a worker under
// the default [Limits] and checks that it defines run(args) with one
// parameter.
func Compile(filename, src string) (*Program, error) {
	return compile(filename, src, DefaultLimits())
}

func compile(filename, src string, lim Limits) (*Program, error) {
	if lim.MemoryBytes < minMemoryBytes {
		return nil, fmt.Errorf("starlarktool: %s: a memory cap of %d bytes is under the %d a worker needs", filename, lim.MemoryBytes, minMemoryBytes)
	}
	if len(src) > maxRequestPayload {
		return nil, &ScriptError{File: filename, Msg: fmt.Sprintf("the script is %d bytes, over the %d-byte limit", len(src), maxRequestPayload)}
	}
	prog := newProgram(filename, src)
	if _, err := poolFor(lim.MemoryBytes).run(context.Background(), prog, false, nil, lim); err != nil {
		return nil, err
	}
	return prog, nil
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description.
func (t *Tool) Description() string { return t.desc }

// InputSchema returns the params schema.
func (t *Tool) InputSchema() *jsonschema.Schema { return t.schema }

// Effect reports [helikon.SideEffect] unless the tool was built
// [WithReadOnly]: a script cannot touch the world, but it is the sidecar
// author's code and nothing proves it read-only, so only its author can say so.
func (t *Tool) Effect() helikon.ToolEffect {
	if t.readOnly {
		return helikon.ReadOnly
	}
	return helikon.SideEffect
}

// Call runs run(args) under the tool's limits, in a worker process.
func (t *Tool) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	fail := func(err error) (helikon.ToolOutput, error) {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.name, Err: err}
	}
	if len(args) > t.lim.MaxArgsBytes {
		return fail(&ScriptError{File: t.prog.filename, Limit: LimitArgs,
			Msg: fmt.Sprintf("arguments are %d bytes, over the %d-byte limit", len(args), t.lim.MaxArgsBytes)})
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	out, err := poolFor(t.lim.MemoryBytes).run(tc, t.prog, true, args, t.lim)
	if err != nil {
		return fail(err)
	}
	// The worker checked both, but the host trusts nothing it did not
	// bound itself.
	if len(out) > t.lim.MaxOutputBytes || !json.Valid(out) {
		return fail(fmt.Errorf("the worker returned %d bytes that are not JSON under the %d-byte cap", len(out), t.lim.MaxOutputBytes))
	}
	return helikon.ToolOutput{Content: json.RawMessage(out)}, nil
}
