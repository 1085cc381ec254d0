package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
)

// remoteTool is one of the server's tools as a [helikon.EffectTool].
type remoteTool struct {
	c                         *Client
	name, remote, description string
	schema                    *jsonschema.Schema
	effect                    helikon.ToolEffect
}

// Name returns the prefixed name.
func (t *remoteTool) Name() string { return t.name }

// Description returns the server's description.
func (t *remoteTool) Description() string { return t.description }

// InputSchema returns the server's schema, or the placeholder in lazy mode.
func (t *remoteTool) InputSchema() *jsonschema.Schema {
	if t.c.cfg.lazy {
		return placeholderSchema()
	}
	return t.schema
}

// Effect returns ReadOnly for a tool annotated readOnlyHint, else SideEffect.
func (t *remoteTool) Effect() helikon.ToolEffect { return t.effect }

// Call sends tools/call and maps the result. Cancelling tc returns at once;
// the go-sdk tells the server with notifications/cancelled.
func (t *remoteTool) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	if _, ok := t.c.current(t.name); !ok {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.name,
			Err: errors.New("the MCP server no longer offers this tool")}
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if t.c.closing.Err() != nil {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.name, Err: ErrClosed}
	}
	// Close must not wait for a server that never answers: it abandons the
	// call, which the go-sdk then retires, telling the server.
	ctx, cancel := context.WithCancelCause(tc)
	defer cancel(nil)
	stop := context.AfterFunc(t.c.closing, func() { cancel(ErrClosed) })
	defer stop()
	res, err := t.c.session.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("call abandoned: %w", context.Cause(ctx))
		} else {
			err = fmt.Errorf("mcp server %s: %w", t.c.server, t.c.withStderr(err))
		}
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.name, Err: err}
	}
	return mapResult(t.name, res)
}

// placeholderSchema is what lazy mode advertises instead of a tool's schema.
func placeholderSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{}}
}
