// Package mcp connects agents to the Model Context Protocol in both
// directions, on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// A [Client] connects to an MCP server (a stdio child process, a
// streamable-HTTP URL, or any go-sdk transport) and adapts its tools to
// [helikon.Tool]; it is a [helikon.ToolSource], so an agent takes its tools
// with [helikon.WithToolSources]:
//
//	fs, err := mcp.ConnectStdio(ctx,
//		exec.Command("npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"),
//		mcp.WithToolPrefix("fs_"))
//	if err != nil {
//		return err
//	}
//	defer fs.Close()
//	agent, err := helikon.NewAgent("assistant", model, helikon.WithToolSources(ctx, fs))
//
// An [AgentServer] serves any [helikon.Agent] as one MCP tool, over stdio or
// streamable HTTP:
//
//	server, err := mcp.NewAgentServer(agent, mcp.WithImplementation("assistant", "1.0.0"))
//	if err != nil {
//		return err
//	}
//	return server.ServeStdio(ctx)
//
// Connection and serving failures are an [*Error] with a [ErrorKind]; a
// failing remote tool is a [helikon.ToolError], as for any tool.
package mcp
