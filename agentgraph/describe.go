package agentgraph

import (
	"reflect"

	"github.com/paigasus/helikon"
)

// The bounds of one description.
const (
	// MaxNodes bounds how many nodes one description holds.
	MaxNodes = 1000
	// MaxDepth bounds how deep agents nest in one description.
	MaxDepth = 32
)

// Describer is implemented by an agent that knows its own structure,
// such as package workflow's kinds. Describe returns the agent's node,
// describing the agents it runs with w ([Walker.Describe],
// [Walker.Members]), which bounds the tree and describes each agent once.
type Describer interface {
	Describe(w *Walker) *Node
}

// Describe describes agent and everything it runs.
func Describe(agent helikon.Agent) *Node {
	return new(Walker).Describe(agent)
}

func (w *Walker) init() {
	if w.state == nil {
		w.state, w.kinds, w.refs = map[any]uint8{}, map[any]Kind{}, map[any][]*Node{}
	}
}

// Walker carries one description's bounds and the agents it has placed.
// [Describe] makes one and hands it to each [Describer].
type Walker struct {
	state map[any]uint8 // per agent: reserved or described
	kinds map[any]Kind  // per described agent
	refs  map[any][]*Node
	nodes int
	depth int
}

const (
	reserved uint8 = iota + 1
	described
)

// key is what identifies an agent in the tree: the value itself when its
// type is comparable (pointers are), else nothing.
func key(a helikon.Agent) any {
	if reflect.TypeOf(a).Comparable() {
		return a
	}
	return nil
}

// Describe returns a's node: a reference when a is already placed in the
// tree, a truncated stub past the bounds, else its full description.
func (w *Walker) Describe(a helikon.Agent) *Node {
	if a == nil {
		return &Node{Kind: KindAgent, Truncated: true}
	}
	w.init()
	k := key(a)
	if k != nil && w.state[k] != 0 {
		return w.ref(a, k)
	}
	return w.describe(a, k)
}

// Members describes a workflow's members in order. All are placed first,
// so a member that names another (a handoff between two steps) refers to
// it rather than describing it inside itself; a member given twice is
// described at its first place.
func (w *Walker) Members(agents ...helikon.Agent) []*Node {
	w.init()
	keys := make([]any, len(agents))
	fresh := make([]bool, len(agents))
	for i, a := range agents {
		if a == nil {
			continue
		}
		if keys[i] = key(a); keys[i] != nil && w.state[keys[i]] == 0 {
			w.state[keys[i]] = reserved
			fresh[i] = true
		}
	}
	out := make([]*Node, len(agents))
	for i, a := range agents {
		switch {
		case a == nil:
			out[i] = &Node{Kind: KindAgent, Truncated: true}
		case keys[i] == nil:
			out[i] = w.describe(a, nil)
		case fresh[i] && w.state[keys[i]] == reserved:
			out[i] = w.describe(a, keys[i])
		default:
			out[i] = w.ref(a, keys[i])
		}
	}
	return out
}

func (w *Walker) describe(a helikon.Agent, k any) *Node {
	if w.nodes >= MaxNodes || w.depth >= MaxDepth {
		return &Node{Name: a.Name(), Kind: KindAgent, Truncated: true}
	}
	w.nodes++
	if k != nil {
		w.state[k] = described
	}
	w.depth++
	defer func() { w.depth-- }()
	var n *Node
	switch d := a.(type) {
	case Describer:
		n = d.Describe(w)
	case *helikon.LLMAgent:
		n = w.llm(d)
	}
	if n == nil {
		n = &Node{Name: a.Name(), Kind: KindAgent, Description: a.Description()}
	}
	if k != nil {
		w.kinds[k] = n.Kind
		// References made while a was being described (a cycle back to
		// it) learn its kind now.
		for _, r := range w.refs[k] {
			r.Kind = n.Kind
		}
		delete(w.refs, k)
	}
	return n
}

func (w *Walker) llm(a *helikon.LLMAgent) *Node {
	n := &Node{Name: a.Name(), Kind: KindLLM, Description: a.Description()}
	if provider, id := helikon.DescribeModel(a.Model()); id != "" {
		n.Model = provider + "/" + id
	} else if provider != "" {
		n.Model = provider
	}
	for _, t := range a.Tools() {
		tool := Tool{Name: t.Name(), Description: t.Description()}
		if at, ok := t.(*helikon.AgentTool); ok {
			tool.Agent = w.Describe(at.Agent())
		}
		n.Tools = append(n.Tools, tool)
	}
	for _, h := range a.Handoffs() {
		n.Handoffs = append(n.Handoffs, w.Describe(h.Agent))
	}
	return n
}

// ref refers to a, placed elsewhere in the tree, by name and kind.
func (w *Walker) ref(a helikon.Agent, k any) *Node {
	if kind, ok := w.kinds[k]; ok {
		return &Node{Name: a.Name(), Kind: kind, Ref: true}
	}
	// Reserved or being described: its kind is set when its description
	// is done.
	r := &Node{Name: a.Name(), Kind: KindAgent, Ref: true}
	w.refs[k] = append(w.refs[k], r)
	return r
}
