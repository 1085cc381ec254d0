package starlarktool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	starlarkjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"

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
	return func(t *Tool) {
		d := DefaultLimits()
		if l.MaxSteps == 0 {
			l.MaxSteps = d.MaxSteps
		}
		if l.Timeout == 0 {
			l.Timeout = d.Timeout
		}
		if l.MaxOutputBytes == 0 {
			l.MaxOutputBytes = d.MaxOutputBytes
		}
		if l.MaxArgsBytes == 0 {
			l.MaxArgsBytes = d.MaxArgsBytes
		}
		t.lim = l
	}
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

// Call runs run(args) under the tool's limits.
func (t *Tool) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	fail := func(err error) (helikon.ToolOutput, error) {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.name, Err: err}
	}
	if len(args) > t.lim.MaxArgsBytes {
		return fail(fmt.Errorf("arguments are %d bytes, over the %d-byte limit", len(args), t.lim.MaxArgsBytes))
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	thread, stop := newThread(tc, t.prog.filename, t.lim)
	defer stop()
	in, err := starlark.Call(thread, decode, starlark.Tuple{starlark.String(args)}, nil)
	if err != nil {
		return fail(fmt.Errorf("arguments: %w", err))
	}
	out, err := starlark.Call(thread, t.prog.run, starlark.Tuple{in}, nil)
	if err != nil {
		return fail(evalError(t.prog.filename, err))
	}
	enc, err := starlark.Call(thread, encode, starlark.Tuple{out}, nil)
	if err != nil {
		return fail(&ScriptError{File: t.prog.filename, Line: int(t.prog.run.Position().Line),
			Msg: fmt.Sprintf("run returned a %s that has no JSON form: %v", out.Type(), err)})
	}
	s := string(enc.(starlark.String))
	if len(s) > t.lim.MaxOutputBytes {
		return fail(&ScriptError{File: t.prog.filename, Line: int(t.prog.run.Position().Line),
			Msg: fmt.Sprintf("run returned %d bytes of JSON, over the %d-byte limit", len(s), t.lim.MaxOutputBytes)})
	}
	return helikon.ToolOutput{Content: json.RawMessage(s)}, nil
}

var (
	decode = starlarkjson.Module.Members["decode"]
	encode = starlarkjson.Module.Members["encode"]
)
