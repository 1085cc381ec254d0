// Drives an MCP server with the TypeScript SDK's client and prints one JSON
// report on stdout, for the Go tests to check.
//
//   node client.mjs stdio <command> [args...]
//   node client.mjs http <url>
//
// It lists the tools, calls a method no server serves, calls the first one with {"input":"hello"} and a
// progress handler, calls it with {"input":"slow"} and aborts that call
// after the first progress notification (notifications/cancelled), then
// sends a too-large input.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as z from "zod";

const [mode, target, ...args] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args, env: process.env, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "ts-sdk-test-client", version: "1.0.0" });
await client.connect(transport);

const report = {
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
};
const { tools } = await client.listTools();
report.tools = tools;

// A method the server does not serve: a JSON-RPC error the client reads,
// and the session goes on (every call below uses it).
report.unknownMethod = await client
  .request({ method: "no/such/method", params: {} }, z.object({}).passthrough())
  .then(
    () => ({ code: 0, message: "answered" }),
    (e) => ({ code: e.code, message: String(e.message) }),
  );
const name = tools[0].name;

const progress = [];
report.result = await client.callTool({ name, arguments: { input: "hello" } }, undefined, {
  onprogress: (p) => progress.push(p),
});
report.progress = progress;

const abort = new AbortController();
try {
  await client.callTool({ name, arguments: { input: "slow" } }, undefined, {
    signal: abort.signal,
    onprogress: () => abort.abort("client gave up"),
  });
  report.aborted = "not aborted";
} catch (e) {
  report.aborted = String(e);
}

report.huge = await client.callTool({ name, arguments: { input: "x".repeat(2 * 1024 * 1024) } }).catch((e) => ({ thrown: String(e) }));
report.badArgs = await client.callTool({ name, arguments: { text: "no input field" } }).catch((e) => ({ thrown: String(e) }));

await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
