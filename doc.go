// Package helikon is the core of the Helikon SDK for agentic AI systems:
// the [Model], [Tool], [Session], [Guardrail], [Hook] and [Agent]
// interfaces, the carrier types that cross them ([Item], [Event]), and the
// LLM agent that drives them.
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
// Agent.Run returns an iter.Seq[Event]: range over it to stream, or drain it
// with [Collect]. The rest, by topic:
//
//   - tools, [NewTool]: docs/tools.md
//   - handoffs and agents as tools, [WithHandoffs], [AgentAsTool]: docs/multi-agent.md;
//     workflow agents (sequential, parallel, loop, swarm, graph): package workflow
//   - structured output, [WithOutput]: docs/structured-output.md
//   - permissions and redaction, [Authorizer], [Redactor]: docs/governance.md, package governance
//   - pausing for a human, [Resume]: docs/human-in-the-loop.md
//   - usage, cost, budgets and tracing, [WithPrices], [WithBudget]: docs/observability.md
//   - persistence: packages runner and session, docs/sessions.md; the loop as data, [Transition]: docs/durable.md
package helikon
