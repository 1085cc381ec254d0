// Package temporal runs agents durably on Temporal (go.temporal.io/sdk):
// a run survives the crash of the process running it, and many worker
// processes on many hosts share the runs of one task queue.
//
// A run is a workflow. Its loop is the core's pure [helikon.Transition],
// driven by a [durable.Driver] exactly as the in-process loop drives it; each
// side effect is an activity: a model turn (CallModel), a tool call
// (InvokeTool; the calls of one turn run concurrently, bounded by
// RunConfig.ParallelToolCalls), and the steps around them (StartRun renders
// the instructions and runs the input guardrails and OnRunStart hooks;
// FinishRun the output guardrails and OnRunComplete hooks; Hook the
// handoff hooks). Temporal records each step's result in the run's history
// once the server has it, so a worker that picks up a crashed run replays
// the history and carries on from the step that was running: recorded
// model turns and tool calls are not repeated (a step whose function
// returned but whose result the server did not get yet runs again). An
// agent used as a tool ([helikon.AgentAsTool]) over an LLM agent runs as a
// child workflow, so its recorded steps are not repeated either; a call in it that asks a human pauses the whole run, as
// in process. An agent tool over an orchestration agent (sequential,
// parallel, loop, swarm, graph) runs inside its tool call's activity.
//
// A paused run waits, holding no worker slot, for the decisions the
// [DecideUpdate] brings ([Runner.Resume], [Runner.ResumePaused]). [Runner.Run]
// learns of a pause from the [WaitUpdate] it starts the run with, without
// polling.
//
// A [Worker] registers the agents it runs, by name, with their model, tools
// and settings, and the [WorkerPosture] that governs every tool call it
// runs. A [Runner] is the client side: a [helikon.Runner] that starts a run
// on a task queue and streams its events. The caller's RunContext does not
// cross to the worker; an explicit seed ([WithSeed]) does, and the worker's
// [ContextFactory] turns it into the run's user value.
//
// The smallest use, with a worker and a client in one program:
//
//	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
//	if err != nil { … }
//	w, err := temporal.NewWorker(c, "agents", temporal.WithAgents(agent))
//	if err != nil { … }
//	if err := w.Start(); err != nil { … }
//	defer w.Stop()
//	r, err := temporal.NewRunner(c, "agents")
//	if err != nil { … }
//	res, err := r.Run(ctx, agent, nil, helikon.UserText("hello"))
//
// A run records at its start the shape of its agents (tools, handoffs, turn
// limit, output type, parallel setting) and the worker's step mode, and
// every worker that continues it follows that record, so a deploy that
// changes an agent does not break the runs in flight; [WithDeploymentVersion]
// pins runs to the release that started them.
//
// See docs/durable.md for the durability contract, deploying agent
// changes, the worker posture, idempotency and the payload budget.
package temporal
