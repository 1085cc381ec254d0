package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
	"github.com/paigasus/helikon/mcp"
)

func newMCPCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Expose sidecar agents over the Model Context Protocol",
	}
	var agent, addr string
	serve := &cobra.Command{
		Use:   "serve --agent NAME [--http ADDR]",
		Short: "Serve one agent as an MCP tool, on stdio or streamable HTTP",
		Long: `mcp serve exposes one sidecar agent as a single MCP tool. Without --http it
speaks MCP on stdin/stdout, for a client that starts it as a subprocess;
with --http ADDR it serves streamable HTTP at http://ADDR/mcp until
interrupted. Every call runs a fresh agent built from the sidecar.

A malformed line on stdio is answered with a JSON-RPC error (-32700 or
-32600) and the session goes on; over HTTP every refusal is a JSON-RPC
error response. serverInfo names the agent's tool and this helikon's
version.`,
		Example: `  helikon mcp serve --agent triage
  helikon mcp serve --agent triage --http 127.0.0.1:8931`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			if agent == "" {
				return fmt.Errorf("mcp serve needs --agent NAME; %s declares %s", f.Path, nameList(f.AgentNames()))
			}
			if _, err := pickAgent(f, agent); err != nil {
				return err
			}
			// Build once now so a missing key or broken tool fails at start,
			// not on the first call.
			if _, err := newBuilder(f, "").agent(agent); err != nil {
				return err
			}
			// An MCP client is a program: a call that needs approval is
			// denied, saying why.
			srv, err := mcp.NewAgentServer(fresh(func() *sidecar.File { return f }, agent),
				mcp.WithImplementation(mcp.SanitizeToolName(agent), version()),
				mcp.WithContextFactory(func() *helikon.RunContext {
					return runContext(f, "default", helikon.WithApprovalHandler(refuser{"helikon mcp serve has no one to ask"}))
				}))
			if err != nil {
				return err
			}
			if addr == "" {
				return srv.ServeIO(cmd.Context(), o.io.In, o.io.Out)
			}
			fmt.Fprintf(o.io.Err, "helikon: serving agent %s as MCP tool %s at http://%s/mcp\n", agent, srv.ToolName(), addr)
			return srv.ListenAndServe(cmd.Context(), addr)
		},
	}
	serve.Flags().StringVar(&agent, "agent", "", "the agent to serve (required)")
	serve.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address instead of stdio")
	cmd.AddCommand(serve)
	return cmd
}
