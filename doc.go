// Package helikon is the core of the Helikon SDK for agentic AI systems.
//
// It defines the interfaces every other package builds on — [Model], [Tool],
// [Session], [Guardrail], [Hook], [Agent] and [Runner] — the carrier types
// that cross them ([Item], [ModelRequest], [ModelEvent], [Event],
// [SessionEvent]), and the LLM agent that drives them.
//
// The agent loop is data: [LoopState] and a pure [Transition] function
// decide what happens next, and a driver runs the side effects (model calls,
// concurrent tool calls, handoffs) in between. A run can be checkpointed at
// any transition boundary and resumed ([LLMAgent.Resume]).
//
// The smallest run, on the scripted mock model:
//
//	model := mock.Scripted(mock.Text("Hello!"))
//	agent, err := helikon.NewAgent("greeter", model, helikon.WithInstructions("Be brief."))
//	if err != nil {
//		log.Fatal(err)
//	}
//	res, err := helikon.Collect(agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("hi")))
//
// Agents compose. A handoff ([WithHandoffs]) passes the rest of the
// conversation to another agent; [AgentAsTool] calls an agent as a tool and
// keeps control; [NewSequential], [NewParallel], [NewLoop], [NewSwarm] and
// [NewGraph] build agents that drive sub-agents in order, concurrently, in a
// bounded loop, as a pool with full-mesh handoffs, or along a dependency
// graph. They are agents too, so they nest, and they hand results to each
// other through the run's [State].
//
// Agent.Run returns an iter.Seq[Event]: range over it to stream, or drain it
// with [Collect] / [CollectTyped]. A failure arrives in the stream as a
// [RunFailed] event; Collect turns it into an error.
//
// Governance: tool calls pass PreToolUse hooks, then the permission pipeline
// — deny rules ([DenyBash], [DenyEdit], …), guard rules
// ([DestructiveGuards] are always on), allow rules, the [PermissionMode],
// the [PermissionPolicy] and the [ApprovalHandler] — then PostToolUse hooks
// and secret redaction. Input and output [Guardrail]s gate the text around
// the run. See docs/governance.md.
//
// Every run reports its token usage, summed over its turns, handoffs and
// sub-agents, on its terminal event and [RunResult]; with a price table
// ([WithPrices]) the usage carries a cost, and a [Budget] ([WithBudget])
// fails a run that spends too much. Runs emit OpenTelemetry spans following
// the GenAI semantic conventions through the program's tracer provider (or
// [WithTracerProvider]); with none installed they cost nothing. Session
// persistence around a run is a runner's job: see the runner package and
// [SessionRecorder].
package helikon
