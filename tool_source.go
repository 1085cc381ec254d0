package helikon

import (
	"context"
	"fmt"
	"log/slog"
)

// ToolSource offers tools discovered at run time rather than written in
// code (an MCP server's, through package mcp's Client; a registry). Tools
// returns what the source offers now; it may block, so it takes a context.
type ToolSource interface {
	Tools(ctx context.Context) ([]Tool, error)
}

// DuplicateNameError is why resolving tool sources failed: two sources (or
// one twice) offer a tool of the same name, which the model could not tell
// apart.
type DuplicateNameError struct {
	// Name is the tool name offered twice.
	Name string
	// First and Second are the indexes of the sources that offer it,
	// counted from 0 in the order given.
	First, Second int
}

// Error names the tool and the two sources.
func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("helikon: tool sources %d and %d both offer a tool named %q", e.First, e.Second, e.Name)
}

// ResolveTools asks every source for its tools and merges them in order. It
// fails with the first source's error, or with a [*DuplicateNameError] when
// two sources offer the same tool name.
func ResolveTools(ctx context.Context, sources ...ToolSource) ([]Tool, error) {
	var all []Tool
	from := make(map[string]int)
	for i, src := range sources {
		if src == nil {
			return nil, buildErr("", ErrInvalidOption, fmt.Sprintf("tool source %d is nil", i))
		}
		tools, err := src.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("helikon: tool source %d: %w", i, err)
		}
		for _, t := range tools {
			if t == nil {
				return nil, buildErr("", ErrInvalidOption, fmt.Sprintf("tool source %d offered a nil tool", i))
			}
			if first, dup := from[t.Name()]; dup {
				return nil, &DuplicateNameError{Name: t.Name(), First: first, Second: i}
			}
			from[t.Name()] = i
		}
		all = append(all, tools...)
	}
	return all, nil
}

// refreshTools asks the agent's tool sources for their tools again before
// a model call (see [WithToolSources]): the request, the transition context
// and the driver's tool index all take the new list.
func (d *driver) refreshTools(ctx context.Context, req *ModelRequest) {
	tools, err := ResolveTools(ctx, d.a.sources...)
	if err != nil {
		slog.Warn("helikon: a tool source failed; the agent keeps its last tool list", "agent", d.a.name, "err", err)
		return
	}
	index := make(map[string]Tool, len(d.a.toolIndex)+len(tools))
	defs := make([]ToolDef, 0, len(d.a.toolDefs)+len(tools))
	for _, def := range d.a.toolDefs {
		if d.a.fromSources[def.Name] {
			continue
		}
		defs = append(defs, def)
		if t, ok := d.a.toolIndex[def.Name]; ok {
			index[def.Name] = t
		}
	}
	for _, t := range tools {
		name := t.Name()
		if _, own := index[name]; own || d.tc.Handoffs[name] != "" {
			slog.Warn("helikon: a tool source offers a tool whose name the agent already uses; it is left out",
				"agent", d.a.name, "tool", name)
			continue
		}
		index[name] = t
		defs = append(defs, ToolDef{Name: name, Description: t.Description(), Parameters: t.InputSchema()})
	}
	d.toolIndex = index
	d.tc.Tools = defs
	if req != nil {
		req.Tools = defs
	}
}
