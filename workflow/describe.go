package workflow

import (
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentgraph"
)

// Each kind describes its members and how they connect, for
// [agentgraph.Describe] (the dev UI's agent graph).
var (
	_ agentgraph.Describer = (*SequentialAgent)(nil)
	_ agentgraph.Describer = (*ParallelAgent)(nil)
	_ agentgraph.Describer = (*LoopAgent)(nil)
	_ agentgraph.Describer = (*GraphAgent)(nil)
	_ agentgraph.Describer = (*SwarmAgent)(nil)
)

// describeSteps describes steps as members keyed by their state keys.
func (c *composite) describeSteps(w *agentgraph.Walker, kind agentgraph.Kind, steps []step) *agentgraph.Node {
	agents := make([]helikon.Agent, len(steps))
	for i, st := range steps {
		agents[i] = st.agent
	}
	n := &agentgraph.Node{Name: c.name, Kind: kind, Description: c.description, Members: w.Members(agents...)}
	for i, m := range n.Members {
		m.Key = steps[i].key
	}
	return n
}

// chain links each step to the next.
func chain(steps []step) []agentgraph.Edge {
	edges := make([]agentgraph.Edge, 0, len(steps))
	for i := 1; i < len(steps); i++ {
		edges = append(edges, agentgraph.Edge{From: steps[i-1].key, To: steps[i].key})
	}
	return edges
}

// Describe describes the steps, each leading to the next.
func (s *SequentialAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	n := s.describeSteps(w, agentgraph.KindSequential, s.steps)
	n.Edges = chain(s.steps)
	return n
}

// Describe describes the branches, which run side by side (no edges).
func (p *ParallelAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	return p.describeSteps(w, agentgraph.KindParallel, p.steps)
}

// Describe describes the steps, each leading to the next and the last
// back to the first ("repeat").
func (l *LoopAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	n := l.describeSteps(w, agentgraph.KindLoop, l.steps)
	n.MaxIterations = l.maxIterations
	n.Edges = chain(l.steps)
	n.Edges = append(n.Edges, agentgraph.Edge{From: l.steps[len(l.steps)-1].key, To: l.steps[0].key, Label: "repeat"})
	return n
}

// Describe describes the nodes, keyed by name, and the dependencies.
func (g *GraphAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	agents := make([]helikon.Agent, len(g.nodes))
	for i, nd := range g.nodes {
		agents[i] = nd.agent
	}
	n := &agentgraph.Node{Name: g.name, Kind: agentgraph.KindGraph, Description: g.description, Members: w.Members(agents...)}
	for i, nd := range g.nodes {
		n.Members[i].Key = nd.key
		for _, j := range nd.succs {
			n.Edges = append(n.Edges, agentgraph.Edge{From: nd.key, To: g.nodes[j].key})
		}
	}
	return n
}

// Describe describes the members, and their handoffs to one another as
// edges ("handoff") rather than nested agents.
func (s *SwarmAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	agents := make([]helikon.Agent, len(s.order))
	for i, name := range s.order {
		agents[i] = s.members[name]
	}
	n := &agentgraph.Node{Name: s.name, Kind: agentgraph.KindSwarm, Description: s.description, Entry: s.entry, Members: w.Members(agents...)}
	for i, m := range n.Members {
		m.Key = s.order[i]
		kept := m.Handoffs[:0]
		for _, h := range m.Handoffs {
			if _, member := s.members[h.Name]; member {
				n.Edges = append(n.Edges, agentgraph.Edge{From: m.Key, To: h.Name, Label: "handoff"})
				continue
			}
			kept = append(kept, h)
		}
		m.Handoffs = kept
	}
	return n
}
