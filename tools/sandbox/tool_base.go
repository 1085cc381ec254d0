package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon/governance"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
)

// maxArgsBytes bounds the arguments a file tool parses to find its path.
const maxArgsBytes = 16 << 20

// base forwards the [helikon.Tool] methods to a tool built by
// [helikon.NewTool], which derives the schema and validates arguments.
type base struct {
	inner helikon.Tool
	sb    *Sandbox
	write bool
}

// Name returns the tool's name.
func (b *base) Name() string { return b.inner.Name() }

// Description returns the text the model reads.
func (b *base) Description() string { return b.inner.Description() }

// InputSchema returns the arguments' schema.
func (b *base) InputSchema() *jsonschema.Schema { return b.inner.InputSchema() }

// Call runs the tool.
func (b *base) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	return b.inner.Call(tc, args)
}

// FileAccess returns the one file the call names, relative to the sandbox
// root when it lies inside, as given otherwise (the call is then denied),
// with where it resolves through symlinks inside the root. A path whose
// resolution cannot be decided (a symlink loop, a link leaving the root) is
// an error, which the governance pipeline turns into a denial.
func (b *base) FileAccess(args json.RawMessage) ([]governance.FileAccess, error) {
	if len(args) > maxArgsBytes {
		return nil, fmt.Errorf("arguments of %d bytes, past %d", len(args), maxArgsBytes)
	}
	var a struct {
		FilePath *string `json:"file_path"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if a.FilePath == nil || *a.FilePath == "" {
		return nil, fmt.Errorf("arguments: no file_path")
	}
	p := *a.FilePath
	c, err := b.sb.clean(b.Name(), p)
	if err != nil {
		return []governance.FileAccess{{Path: p, Write: b.write}}, nil
	}
	r, err := b.sb.resolve(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, err)
	}
	return []governance.FileAccess{{Path: c, Resolved: r, Write: b.write}}, nil
}

// Effect returns ReadOnly for Read and Write for the tools that write.
func (b *base) Effect() helikon.ToolEffect {
	if b.write {
		return helikon.Write
	}
	return helikon.ReadOnly
}

// newBase builds the base of a tool named name on sb, calling fn.
func newBase[In, Out any](sb *Sandbox, name, desc string, write bool, fn func(*helikon.ToolContext, In) (Out, error)) (base, error) {
	if sb == nil {
		return base{}, fmt.Errorf("sandbox: %s: nil sandbox", name)
	}
	inner, err := helikon.NewTool(name, desc, fn)
	if err != nil {
		return base{}, err
	}
	return base{inner: inner, sb: sb, write: write}, nil
}
