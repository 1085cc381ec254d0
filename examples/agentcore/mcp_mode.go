//go:build mcp

package main

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/agentcore/mcpserver"
)

// serveMCP serves the agent on the MCP protocol (/mcp, port 8000).
func serveMCP(ctx context.Context, agent helikon.Agent, addr string, opts []agentcore.Option) error {
	srv, err := mcpserver.New(agent, opts)
	if err != nil {
		return err
	}
	addr = cmp.Or(addr, mcpserver.DefaultAddr)
	fmt.Fprintf(os.Stderr, "agentcore: serving %q over MCP on %s/mcp\n", agent.Name(), addr)
	return srv.ListenAndServe(ctx, addr)
}
