package agentgraph

// Kind says what an agent described by a [Node] is.
type Kind string

// The kinds [Describe] and package workflow give.
const (
	// KindLLM is a model-driven agent (helikon.LLMAgent).
	KindLLM Kind = "llm"
	// KindAgent is an agent that describes nothing of itself beyond its
	// name and description.
	KindAgent      Kind = "agent"
	KindSequential Kind = "sequential"
	KindParallel   Kind = "parallel"
	KindLoop       Kind = "loop"
	KindSwarm      Kind = "swarm"
	KindGraph      Kind = "graph"
)

// Node describes one agent and what it runs.
type Node struct {
	// Name is the agent's name, as events name it.
	Name string `json:"name" jsonschema:"the agent's name, as its events name it"`
	// Key is the member's key in the workflow that holds it (a graph
	// node's name, a step's state key); edges name members by key.
	Key         string `json:"key,omitempty" jsonschema:"the member's key in the workflow that holds it, which edges use"`
	Kind        Kind   `json:"kind" jsonschema:"llm, agent, sequential, parallel, loop, swarm or graph; other values may be added"`
	Description string `json:"description,omitempty" jsonschema:"what the agent does"`
	// Model is "provider/model-id" for an LLM agent.
	Model string `json:"model,omitempty" jsonschema:"provider/model-id of an LLM agent"`
	// Tools are an LLM agent's tools, handoff tools excluded.
	Tools []Tool `json:"tools,omitempty" jsonschema:"an LLM agent's tools; an agent called as a tool carries its description"`
	// Handoffs are the agents an LLM agent may hand the conversation to.
	Handoffs []*Node `json:"handoffs,omitempty" jsonschema:"the agents an LLM agent may hand the conversation to"`
	// Members are a workflow's agents in their declared order.
	Members []*Node `json:"members,omitempty" jsonschema:"a workflow's agents, in their declared order"`
	// Edges connect members by key: the order of a sequence or loop, a
	// graph's dependencies, a swarm's handoffs.
	Edges []Edge `json:"edges,omitempty" jsonschema:"connections between members, by key"`
	// Entry is the key of the member a swarm starts with.
	Entry string `json:"entry,omitempty" jsonschema:"the member a swarm starts with"`
	// MaxIterations bounds a loop.
	MaxIterations int `json:"max_iterations,omitempty" jsonschema:"a loop's iteration bound"`
	// Ref marks an agent described elsewhere in the tree (an ancestor,
	// or an earlier place): only its name and kind are given here.
	Ref bool `json:"ref,omitempty" jsonschema:"described elsewhere in this tree: name and kind only"`
	// Truncated marks a node left out past [MaxNodes] or [MaxDepth].
	Truncated bool `json:"truncated,omitempty" jsonschema:"left undescribed: the description reached its size bound"`
}

// Tool is one tool of an LLM agent.
type Tool struct {
	Name        string `json:"name" jsonschema:"the tool's name, as the model calls it"`
	Description string `json:"description,omitempty" jsonschema:"what the tool does"`
	// Agent describes the agent an agent tool runs; nil for other tools.
	Agent *Node `json:"agent,omitempty" jsonschema:"the agent this tool runs, for an agent called as a tool"`
}

// Edge connects two members of a workflow by key.
type Edge struct {
	From string `json:"from" jsonschema:"the key of the member the edge leaves"`
	To   string `json:"to" jsonschema:"the key of the member the edge reaches"`
	// Label says what the edge is when it is not plain order ("handoff",
	// "repeat").
	Label string `json:"label,omitempty" jsonschema:"what the edge is, when not plain order: handoff, repeat"`
}
