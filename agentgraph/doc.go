// Package agentgraph describes an agent's structure as a tree a UI can
// draw: an LLM agent's model, tools, agents it calls as tools and handoff
// targets; a workflow's members and the edges between them (package
// workflow's kinds describe themselves through [Describer]), nested to
// any depth. The dev UI draws it from the agent server's
// GET /agents/{name}/graph.
//
//	root := agentgraph.Describe(agent)
//	for _, t := range root.Tools {
//		fmt.Println(t.Name)
//	}
//
// A description is bounded ([MaxNodes]), and an agent met again in the
// same tree (a handoff cycle, one agent in two steps) is described once:
// its later places hold a reference ([Node].Ref) by name.
package agentgraph
