// Package server serves agents over HTTP, Server-Sent Events and
// WebSocket, as an [http.Handler] that mounts in any mux and middleware
// stack. Every run drains into an [EventLog], so it can be replayed and
// followed from any transport, and, with a shared log such as the Redis
// one in package redislog, from any replica.
//
//	srv, err := server.New([]helikon.Agent{agent})
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(srv.Serve(ctx, "127.0.0.1:8080")) // graceful on ctx cancel
//
// # Routes
//
//	GET  /agents                           names and descriptions
//	POST /agents/{name}/runs               {"input": "…"} or {"messages": [...]}:
//	                                       the finished run (default), its events
//	                                       as SSE (?stream=sse), or 202 (?mode=async)
//	GET  /agents/{name}/runs/{id}          status and, once ended, the result
//	GET  /agents/{name}/runs/{id}/events   WebSocket, or SSE from Last-Event-ID on
//	POST /agents/{name}/runs/{id}/cancel   cancel a running run (on any replica
//	                                       when the log is a [CancelRelay])
//	GET  /agents/{name}/runs/{id}/approvals  a paused run's pending calls
//	POST /agents/{name}/runs/{id}/approvals  decide them; the run continues
//	GET  /runs                             the retained runs, newest first
//	GET  /openapi.json                     the OpenAPI 3.1 document of all of this
//	GET  /ui/                              the dev web UI, with [WithDevUI]
//
// Every run response carries X-Run-Id. An SSE frame's event: is the
// event's type and its id: the event's position in the run, which a
// reconnecting client sends back as Last-Event-ID; a WebSocket message is
// the event's JSON with its position as "seq". A stream always ends with a
// terminal event (run_completed or run_failed): when the log holds none,
// the stream ends with a synthetic run_failed (without an id). A stream
// resumed after a finished run's terminal event sends nothing more (SSE:
// 204).
// Errors share one JSON shape, [ErrorBody].
//
// One-shot and SSE runs are cancelled when their client disconnects; an
// async run is not. Finished runs are kept for a retention period and up
// to a count ([WithRetention]); a sweeper prunes the rest.
//
// # Sessions
//
// X-Session-Id pins a run to a session through the [SessionProvider]
// (in memory by default; any helikon.Session backend plugs in, see
// [SessionProvider]). Runs on one session run one at a time on a server:
// the second waits for the first, and its wait ends if it is cancelled.
// A request without the header runs on a fresh session that is not kept.
//
// # Security
//
// The [Authenticator] ([WithAuth]) sees every request first and may
// reject it with 401 or 403, or admit it as a [Principal]. A run, its
// events and its approvals belong to the principal that started it, and a
// session id names a session of that principal's own: every route that
// names a run answers another principal 404, as for a run that does not
// exist, and GET /runs lists the caller's own runs; an admin principal
// reaches all, and the server's log audits it. The [ContextProvider] then
// builds the run's RunContext from the
// request; the default, [DefaultContext], runs every request in
// governance.PermissionPlan, so network callers can only make agents use
// read-only tools. For production:
//
//   - authenticate every caller, and derive the permission mode, the
//     approval handler and the deny rules from who the caller is, in your
//     own ContextProvider;
//   - loosen the permission mode only for agents whose side-effecting
//     tools you have vetted, and prefer an approval handler that enforces
//     the tenant's access rules;
//   - attach hooks for telemetry and policy;
//   - keep the [Limits] (body size, nesting, runs per server, per
//     principal and per session, event streams per principal) at what
//     your deployment can bear.
//
// Request bodies are capped in size and nesting before they are decoded,
// decoded strictly (unknown members are an error), and may not carry
// system messages: instructions are the operator's.
package server
