package helikon

import (
	"context"
	"log/slog"
)

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
