package helikon

import (
	"context"
	"fmt"
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
