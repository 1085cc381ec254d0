package agentgraph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentgraph"
	"github.com/paigasus/helikon/mock"
)

func llm(t *testing.T, name string, opts ...helikon.AgentOption) *helikon.LLMAgent {
	t.Helper()
	a, err := helikon.NewAgent(name, mock.Scripted(mock.Text("ok")), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDescribe_AnLLMAgentShowsItsModelToolsAgentToolsAndHandoffs(t *testing.T) {
	lookup := helikon.MustTool("lookup", "Look a month up.", func(*helikon.ToolContext, struct{}) (string, error) { return "", nil })
	researcher := llm(t, "researcher", helikon.WithTools(lookup))
	research, err := helikon.AgentAsTool(researcher, helikon.WithToolName("research"))
	if err != nil {
		t.Fatal(err)
	}
	billing := llm(t, "billing", helikon.WithDescription("bills"))
	triage := llm(t, "triage", helikon.WithTools(lookup, research), helikon.WithHandoffs(helikon.HandoffTo(billing)))

	n := agentgraph.Describe(triage)
	if n.Name != "triage" || n.Kind != agentgraph.KindLLM || !strings.HasPrefix(n.Model, "mock") {
		t.Errorf("root %+v", n)
	}
	if len(n.Tools) != 2 || n.Tools[0].Name != "lookup" || n.Tools[0].Description != "Look a month up." || n.Tools[0].Agent != nil {
		t.Fatalf("tools %+v", n.Tools)
	}
	if at := n.Tools[1]; at.Name != "research" || at.Agent == nil || at.Agent.Name != "researcher" || len(at.Agent.Tools) != 1 {
		t.Errorf("agent tool %+v", at)
	}
	if len(n.Handoffs) != 1 || n.Handoffs[0].Name != "billing" || n.Handoffs[0].Description != "bills" || n.Handoffs[0].Ref {
		t.Errorf("handoffs %+v", n.Handoffs)
	}
}

func TestDescribe_ACycleIsDescribedOnceAndReferredToAfter(t *testing.T) {
	// triage hands off to a relay, which runs triage again.
	relay := &chainAgent{name: "relay"}
	triage := llm(t, "triage", helikon.WithHandoffs(helikon.HandoffTo(relay)))
	relay.next = triage
	n := agentgraph.Describe(triage)
	if len(n.Handoffs) != 1 || n.Handoffs[0].Name != "relay" || n.Handoffs[0].Kind != "chain" {
		t.Fatalf("triage's handoffs %+v", n.Handoffs)
	}
	back := n.Handoffs[0].Members
	if len(back) != 1 || back[0].Name != "triage" || !back[0].Ref || back[0].Kind != agentgraph.KindLLM || len(back[0].Handoffs) != 0 {
		t.Errorf("the relay's member %+v, want a reference to triage", back)
	}
	// An agent that is its own member.
	self := &chainAgent{name: "self"}
	self.next = self
	if m := agentgraph.Describe(self).Members; len(m) != 1 || !m[0].Ref || m[0].Kind != "chain" {
		t.Errorf("a self-loop's member %+v", m)
	}
}

// chainAgent is an agent that describes itself as a step before next:
// a user's own kind, through the Describer interface.
type chainAgent struct {
	helikon.Agent
	name string
	next helikon.Agent
}

func (c *chainAgent) Name() string        { return c.name }
func (c *chainAgent) Description() string { return "a step before the next" }

func (c *chainAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	n := &agentgraph.Node{Name: c.name, Kind: "chain"}
	if c.next != nil {
		n.Members = w.Members(c.next)
	}
	return n
}

func TestDescribe_IsBoundedInDepthAndSize(t *testing.T) {
	var a helikon.Agent = llm(t, "leaf")
	for i := range 3 * agentgraph.MaxDepth {
		a = &chainAgent{name: fmt.Sprintf("c%d", i), next: a}
	}
	n := agentgraph.Describe(a)
	depth := 0
	for ; len(n.Members) > 0; n = n.Members[0] {
		depth++
	}
	if depth != agentgraph.MaxDepth || !n.Truncated {
		t.Errorf("described %d levels deep, last %+v; want %d and a truncated stub", depth, n, agentgraph.MaxDepth)
	}

	wide := make([]helikon.Agent, 3*agentgraph.MaxNodes)
	for i := range wide {
		wide[i] = llm(t, fmt.Sprintf("a%d", i))
	}
	root := &fanAgent{name: "fan", members: wide}
	data, err := json.Marshal(agentgraph.Describe(root))
	if err != nil {
		t.Fatal(err)
	}
	var got agentgraph.Node
	_ = json.Unmarshal(data, &got)
	full := 0
	for _, m := range got.Members {
		if !m.Truncated {
			full++
		}
	}
	if full != agentgraph.MaxNodes-1 || len(got.Members) != len(wide) {
		t.Errorf("%d of %d members described, want %d (the bound, less the root)", full, len(got.Members), agentgraph.MaxNodes-1)
	}
}

type fanAgent struct {
	helikon.Agent
	name    string
	members []helikon.Agent
}

func (f *fanAgent) Name() string        { return f.name }
func (f *fanAgent) Description() string { return "runs every member" }

func (f *fanAgent) Describe(w *agentgraph.Walker) *agentgraph.Node {
	return &agentgraph.Node{Name: f.name, Kind: "fan", Members: w.Members(f.members...)}
}
