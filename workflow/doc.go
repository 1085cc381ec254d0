// Package workflow builds agents that drive sub-agents: [NewSequential]
// runs steps in order, [NewParallel] runs branches concurrently, [NewLoop]
// repeats steps until one escalates, [NewSwarm] passes the conversation
// around a pool of members with full-mesh handoffs, and [NewGraph] runs
// nodes along a dependency graph. Each is a [helikon.Agent], so they nest,
// and they hand results to each other through the run's [helikon.State].
// A sub-agent that pauses for approval pauses the workflow, and
// [helikon.Resume] continues it where it stopped.
//
//	pipeline, err := workflow.NewSequential("research-then-write",
//		workflow.Step(researcher),
//		workflow.Step(writer)) // writer's instructions read State "researcher"
//	if err != nil {
//		log.Fatal(err)
//	}
//	res, err := helikon.Collect(pipeline.Run(ctx, helikon.Ephemeral(), helikon.UserText("GPU prices")))
//
// The agents are built only on the core's exported sub-run API
// ([helikon.OpenRun], [helikon.RunInto], [helikon.ChildOutcome],
// [helikon.SubagentStopped], [helikon.EmitPaused], [helikon.Resumer]);
// [RunChild] and [ChildStream]
// run a child on it, and a new kind of workflow agent uses the same calls
// (see the package's Example). Handoffs and agents used
// as tools are part of the LLM agent and stay in the core.
package workflow
