//go:build !mcp

package main

import (
	"context"
	"errors"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
)

// serveMCP reports that this build left the MCP protocol out: the MCP SDK
// is 1.6 MB of the binary and init work on every start, which a container
// serving the HTTP protocol does not need.
func serveMCP(context.Context, helikon.Agent, string, []agentcore.Option) error {
	return errors.New("-mcp: this binary was built without the MCP protocol; rebuild with -tags mcp")
}
