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
// keeps control. The workflow package builds agents that drive sub-agents
// in order, concurrently, in a bounded loop, as a swarm or along a graph,
// on the sub-run API of this package ([OpenRun], [RunChild], [EmitPaused],
// [Resumer]).
//
// Agent.Run returns an iter.Seq[Event]: range over it to stream, or drain it
// with [Collect] / [CollectTyped]. A failure arrives in the stream as a
// [RunFailed] event; Collect turns it into an error.
//
// Governance: tool calls pass PreToolUse hooks, then the run's
// [Authorizer] (may the call run? allow, deny with a reason, or ask the
// [ApprovalHandler]; without one the run pauses for a human decision), then
// PostToolUse hooks and the run's [Redactor]. The governance package
// implements both seams with permission modes, deny, allow and guard rules
// and secret redaction. Input and output [Guardrail]s gate the text around
// the run. See docs/governance.md.
//
// Every run reports its token usage, summed over its turns, handoffs and
// sub-agents, on its terminal event and [RunResult]; with a price table
// ([WithPrices]) the usage carries a cost, and a [Budget] ([WithBudget])
// fails a run that spends too much. Runs emit OpenTelemetry spans following
// the GenAI semantic conventions through the program's tracer provider (or
// [WithTracerProvider]); with none installed they cost nothing. Session
// persistence around a run is a runner's job: see the runner package.
package helikon
