// Package a2a connects Helikon agents to the Agent2Agent (A2A) protocol, over
// the protocol's official Go SDK (github.com/a2aproject/a2a-go).
//
// A [Server] serves any [helikon.Agent] as an A2A agent: its agent card at
// the well-known path, and message/send, message/stream, tasks/get,
// tasks/cancel and tasks/resubscribe over JSON-RPC. Each message is a run of
// the agent; the A2A context id names the run's session, scoped to the caller
// ([WithAuthenticator]); a run that pauses for approval leaves its task
// input-required until the next message on the task carries the decisions.
//
//	srv, err := a2a.NewServer(agent, a2a.WithURL("http://localhost:8080/"))
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(http.ListenAndServe(":8080", srv))
//
// A [Server] bounds what callers make it hold: a request body
// ([WithMaxRequestBytes]), the runs in flight ([WithMaxRuns]), and the
// tasks it remembers, in number and bytes ([WithMaxTasks],
// [WithMaxTaskBytes]). Past a task bound a caller makes room from its own
// tasks, or from a principal holding at least as much as it, never from
// one holding less; a task it cannot keep fails its save with
// [ErrTaskTooLarge], a JSON-RPC server error to the client.
//
// A [RemoteAgent] is the other side: a remote A2A agent as a
// [helikon.Agent], so it can be a handoff target, a workflow step or, with
// [helikon.AgentAsTool], a tool whose updates stream into the caller's run as
// sub-run events.
//
//	remote, err := a2a.NewRemoteAgent(ctx, "http://localhost:8080/")
//	if err != nil {
//		log.Fatal(err)
//	}
//	res, err := helikon.Collect(remote.Run(ctx, helikon.Ephemeral(), helikon.UserText("hi")))
//
// Everything a remote sends is bounded: response bodies and streamed events
// by [WithMaxResponseBytes], a whole run by [WithTimeout] and the caller's
// context. A redirect is followed only within its request's origin, so the
// credentials a client adds reach no other host ([ErrCrossOriginRedirect]).
package a2a
