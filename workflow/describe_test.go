package workflow_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentgraph"
	"github.com/paigasus/helikon/workflow"
)

// outline writes a description one node a line, nested by indentation:
// kind, name, [key], what it holds, and -> edges.
func outline(n *agentgraph.Node) string {
	var b strings.Builder
	var walk func(n *agentgraph.Node, depth int)
	walk = func(n *agentgraph.Node, depth int) {
		pad := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s %s", pad, n.Kind, n.Name)
		if n.Key != "" && n.Key != n.Name {
			fmt.Fprintf(&b, " [%s]", n.Key)
		}
		if n.Ref {
			b.WriteString(" (ref)")
		}
		if n.Entry != "" {
			fmt.Fprintf(&b, " entry=%s", n.Entry)
		}
		if n.MaxIterations > 0 {
			fmt.Fprintf(&b, " max=%d", n.MaxIterations)
		}
		for _, t := range n.Tools {
			if t.Agent == nil {
				fmt.Fprintf(&b, " tool=%s", t.Name)
			}
		}
		b.WriteString("\n")
		for _, t := range n.Tools {
			if t.Agent != nil {
				fmt.Fprintf(&b, "%s  tool %s:\n", pad, t.Name)
				walk(t.Agent, depth+2)
			}
		}
		for _, h := range n.Handoffs {
			fmt.Fprintf(&b, "%s  handoff:\n", pad)
			walk(h, depth+2)
		}
		for _, m := range n.Members {
			walk(m, depth+1)
		}
		for _, e := range n.Edges {
			fmt.Fprintf(&b, "%s  %s -> %s %s\n", pad, e.From, e.To, e.Label)
		}
	}
	walk(n, 0)
	return strings.TrimSpace(b.String())
}

func TestDescribe_EveryKindDescribesItsMembersAndEdgesNested(t *testing.T) {
	lookup := helikon.MustTool("lookup", "Look it up.", func(*helikon.ToolContext, struct{}) (string, error) { return "", nil })
	agent := func(a helikon.Agent, err error) helikon.Agent {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	researcher := answerer(t, "researcher", "r", helikon.WithTools(lookup))
	critic := answerer(t, "critic", "c")
	writer := answerer(t, "writer", "w")
	lenses := agent(workflow.NewParallel("lenses", workflow.KeyedStep("optimist", answerer(t, "optimist", "o")), workflow.KeyedStep("pessimist", critic)))
	refine := agent(workflow.NewLoop("refine", 3, workflow.Step(writer), workflow.Step(critic)))
	graph := agent(workflow.NewGraph("plan",
		workflow.Node("research", researcher), workflow.Node("views", lenses), workflow.Node("draft", refine),
		workflow.Edge("research", "draft"), workflow.Edge("views", "draft")))
	billing := answerer(t, "billing", "b")
	support := answerer(t, "support", "s")
	desk := agent(workflow.NewSwarm("desk", workflow.Members(billing, support), workflow.WithEntry("support")))
	root := agent(workflow.NewSequential("pipeline", workflow.Step(graph), workflow.KeyedStep("answer", desk)))

	got := outline(agentgraph.Describe(root))
	want := strings.TrimSpace(`
sequential pipeline
  graph plan
    llm researcher [research] tool=lookup
    parallel lenses [views]
      llm optimist
      llm critic [pessimist]
    loop refine [draft] max=3
      llm writer
      llm critic (ref)
      writer -> critic 
      critic -> writer repeat
    research -> draft 
    views -> draft 
  swarm desk [answer] entry=support
    llm billing
    llm support
    billing -> support handoff
    support -> billing handoff
  plan -> answer`)
	if got != want {
		t.Errorf("description:\n%s\nwant:\n%s", got, want)
	}
}
