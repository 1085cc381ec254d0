// Package agentcore hosts an agent on AWS Bedrock AgentCore Runtime: it
// implements the container contract AgentCore's managed runtime speaks to,
// so the same [helikon.Agent] that runs in a test deploys as a managed
// microVM container without hand-written endpoints.
//
// The contract (Amazon Bedrock AgentCore Developer Guide, "Understand the
// AgentCore Runtime service contract", "HTTP protocol contract" and "MCP
// protocol contract"; and the ping body of the official
// bedrock-agentcore-sdk-python, runtime/app.py):
//
//   - HTTP protocol: the container listens on 0.0.0.0:8080. GET /ping answers
//     {"status":"Healthy"} or, while an invocation (or work the program
//     declares with [Server.Busy]) is in flight, {"status":"HealthyBusy"},
//     always with "time_of_last_update": the Unix second of the last status
//     change. The platform's idle reaper reads that timestamp: without it a
//     busy container is reaped at the idle timeout (reported against the
//     official SDK as issue #471), so it is always sent. POST /invocations
//     runs the agent; the X-Amzn-Bedrock-AgentCore-Runtime-Session-Id header
//     (33–256 characters) names the conversation.
//   - MCP protocol: the container listens on 0.0.0.0:8000 and serves
//     stateless streamable HTTP at /mcp, accepting the Mcp-Session-Id header
//     the platform generates. That is package agentcore/mcpserver, kept
//     apart so that a program serving the HTTP protocol does not link the
//     MCP SDK.
//   - Images are linux/arm64.
//
// The smallest use:
//
//	srv, err := agentcore.New(agent, agentcore.WithSessions(sessions))
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(srv.ListenAndServe(ctx, "")) // 0.0.0.0:8080
//
// An invocation body is {"prompt": "…"} (what InvokeAgentRuntime callers
// usually send), {"input": "…"}, or {"messages": [...]} (the core's item
// JSON). Other members are ignored, since InvokeAgentRuntime passes a
// caller's payload through as it is: {"prompt": "…", "user_id": "u-1"} runs
// the prompt. The body is JSON: a Content-Type other than application/json
// is answered 415 (a request without one is taken as JSON); media types
// compare case-insensitively and may carry parameters. A client whose
// Accept lists text/event-stream (in any case, with a q above 0) gets the
// run's events as Server-Sent Events (event: the event's type, data: its
// JSON); any other gets one JSON [Response] when the run ends. A client that walks away
// cancels the run, and the runner still records what the run produced in
// the session.
//
// Every rejected request of the HTTP protocol — a bad body (400, 415, 413,
// or 408 when it does not arrive within [WithBodyReadTimeout]), an unknown
// path (404), a wrong method (405), oversized headers (431) — is answered
// with an [ErrorBody] in the agent server's shape:
// {"error": {"code": "…", "message": "…"}}.
//
// Termination is abrupt: AgentCore documents no SIGTERM contract and may
// stop a microVM at any moment. Nothing this package holds in memory
// matters; conversation state belongs in a session backend (SQLite on the
// session storage mount, PostgreSQL, Redis), never in the container.
package agentcore
