package workflow

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/eventclock"
)

// GraphAgent runs a directed acyclic graph of agents: nodes are agents,
// edges are dependencies, and a node runs once all its predecessors have
// completed. Ready nodes run concurrently as their predecessors finish (a
// Kahn wavefront). Nodes that become ready while no other node runs start
// one after another on the goroutine ranging over the stream, as the
// steps of a [SequentialAgent] do, and those not started once the first
// have run for 20 µs start on goroutines of their own, as does a node
// that becomes ready while others run there. Only that goroutine starts
// nodes, so a node runs on it only when every node not yet ready depends
// on it (or, in a graph of more than 64 nodes, 32 on a 32-bit platform,
// when it is the only one ready): a slow node there never holds back a
// node that another's end made ready.
//
// A node's input is the run's input followed by one labelled user message
// per predecessor ("Output of <name>:" and its final text), in declaration
// order. Its final text is also written to the run's [State] under its
// name. When every node has run, the graph ends with one [MessageOutput]
// of its own built from the sinks (nodes without successors): a single
// sink's text verbatim, several merged into a JSON object keyed by node name
// with sorted keys, so the output does not depend on completion order.
//
// Failure is collect-all: a failed node's descendants are skipped,
// independent branches run to completion, then one RunFailed names the
// failed and the skipped nodes (a [*WorkflowError] under the
// [*AgentError]). Breaking out of the stream stops the running nodes and
// waits for them: their context is cancelled, or, when the run's context
// can never be cancelled, each stops at its next event, as a single agent's
// run on such a context does. Run-level hooks fire from the nodes'
// goroutines, so they must be safe for concurrent use.
//
// A node that pauses for approval ([RunPaused]) holds up its descendants;
// independent nodes run on until nothing else can run, and then, unless a
// node failed (a failure wins), the graph pauses, keeping the finished
// nodes' outputs. [Resume] resumes the paused nodes and runs the wavefront
// on from there.
type GraphAgent struct {
	composite
	nodes []graphNode
	sinks []int // nodes without successors, by name
	// desc[i] holds node i's descendants, a bit a node, for a graph of
	// at most bits.UintSize nodes (see fanIn.later); nil for a larger one.
	desc []int
	// fedNodes counts the nodes with predecessors and links the edges
	// (repeats dropped): the nodes' inputs hold fedNodes copies of the
	// run's input and links labels. labelled counts the nodes with
	// successors, which a run labels once, and labelHeads sums their
	// labels' heads (labelSize). They are int32s, which any graph's
	// counts fit, so that a small graph's build fills one size class.
	fedNodes, links, labelled, labelHeads int32
}

type graphNode struct {
	key          string
	agent        helikon.Agent
	preds, succs []int // node indices, ascending
}

// GraphOption configures [NewGraph]: [Node], [Edge] and [WithDescription].
type GraphOption interface {
	applyGraph()
}

// NodeOption is one node of a graph; build it with [Node].
type NodeOption struct {
	name  string
	agent helikon.Agent
}

// Node adds agent to a graph as node name. The name is also the [State] key
// of the node's final text and its label in successors' input.
func Node(name string, agent helikon.Agent) NodeOption { return NodeOption{name: name, agent: agent} }

// EdgeOption is one dependency of a graph; build it with [Edge].
type EdgeOption struct{ from, to string }

// Edge makes node to depend on node from: to runs after from completes and
// sees its output. Repeating an edge has no further effect.
func Edge(from, to string) EdgeOption { return EdgeOption{from: from, to: to} }

func (NodeOption) applyGraph() {}
func (EdgeOption) applyGraph() {}

// NewGraph builds a [GraphAgent]. It fails with a [*helikon.BuildError] for an empty
// name, no nodes ([ErrNoSubAgents]), a nil agent or empty node name
// ([helikon.ErrInvalidOption]), two nodes with one name ([helikon.ErrDuplicateKey]), an edge
// naming no node ([ErrUnknownKey]) or a cycle ([ErrCycle], with the nodes of
// one cycle in its Keys).
//
//	report, err := workflow.NewGraph("finance_report",
//		workflow.Node("spending", spending),
//		workflow.Node("income", income),
//		workflow.Node("summary", summary),
//		workflow.Edge("spending", "summary"),
//		workflow.Edge("income", "summary"))
func NewGraph(name string, opts ...GraphOption) (*GraphAgent, error) {
	if name == "" {
		return nil, buildErr(name, helikon.ErrInvalidOption, "name is required")
	}
	// The options are read by type, not through their method: a call
	// through the interface would make every option escape, costing the
	// caller an allocation per Node and Edge.
	nn, ne := 0, 0
	var description string
	for _, o := range opts {
		switch o := o.(type) {
		case NodeOption:
			nn++
		case EdgeOption:
			ne++
		case DescriptionOption:
			description = o.d
		default:
			// Only a type embedding one of the three gets here.
			return nil, buildErr(name, helikon.ErrInvalidOption, "an option is neither a Node, an Edge nor WithDescription")
		}
	}
	if nn == 0 {
		return nil, buildErr(name, ErrNoSubAgents, "no nodes; add them with Node")
	}
	// The nodes' predecessors and successors, the sinks and a word a node
	// (its count of predecessors, or, in a graph of at most
	// bits.UintSize nodes, its predecessors as bits and then its
	// descendants: linkByBits) are cut from one array, which a small
	// graph holds with its nodes in its own allocation. The build's
	// scratch, each edge's ends and a word a node for its successors,
	// lies on the stack for a small graph.
	var g *GraphAgent
	var ints []int
	if k := 2*ne + 2*nn; nn <= smallGraphNodes && k <= smallGraphInts {
		s := new(smallGraph)
		g, ints = &s.GraphAgent, s.ints[:k]
		g.nodes = s.nodes[:nn]
	} else {
		g, ints = new(GraphAgent), make([]int, k)
		g.nodes = make([]graphNode, nn)
	}
	var room [2*smallGraphEdges + smallGraphNodes]int
	scratch := room[:]
	if k := 2*ne + nn; k > len(room) {
		scratch = make([]int, k)
	}
	g.composite = composite{name: name, description: description}
	links, sinks, npreds := ints[:2*ne], ints[2*ne:2*ne:2*ne+nn], ints[2*ne+nn:2*ne+2*nn]
	ends, nsuccs := scratch[:2*ne], scratch[2*ne:2*ne+nn]
	var index map[string]int // by name, for a graph too large to scan
	if nn > graphScan {
		index = make(map[string]int, nn)
	}
	nodes := g.nodes[:0]
	for _, o := range opts {
		n, ok := o.(NodeOption)
		if !ok {
			continue
		}
		switch {
		case n.agent == nil:
			return nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("node %q has no agent", n.name), n.name)
		case n.name == "":
			return nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("node %d has an empty name", len(nodes)))
		}
		if nodeIndex(nodes, index, n.name) >= 0 {
			return nil, buildErr(name, helikon.ErrDuplicateKey, fmt.Sprintf("two nodes are named %q", n.name), n.name)
		}
		if index != nil {
			index[n.name] = len(nodes)
		}
		nodes = append(nodes, graphNode{key: n.name, agent: n.agent})
	}
	if err := g.edgeEnds(opts, index, ends); err != nil {
		return nil, err
	}
	if nn <= bits.UintSize {
		if err := g.linkByBits(ends, links, sinks, npreds, nsuccs); err != nil {
			return nil, err
		}
		return g, nil
	}
	for k := 0; k < len(ends); k += 2 {
		npreds[ends[k+1]]++
		nsuccs[ends[k]]++
	}
	at := 0
	for i := range nodes {
		p, s := npreds[i], nsuccs[i]
		nodes[i].preds, nodes[i].succs = links[at:at:at+p], links[at+p:at+p:at+p+s]
		at += p + s
	}
	for k := 0; k < len(ends); k += 2 {
		from, to := ends[k], ends[k+1]
		nodes[to].preds = append(nodes[to].preds, from)
		nodes[from].succs = append(nodes[from].succs, to)
	}
	for i := range nodes {
		n := &nodes[i]
		// A repeated edge has no further effect.
		if !strictlyAscending(n.preds) {
			n.preds = ascendingSet(n.preds)
		}
		if !strictlyAscending(n.succs) {
			n.succs = ascendingSet(n.succs)
		}
		sinks = g.count(i, sinks)
	}
	// The counts are spent: they hold the cycle check's in-degrees and
	// the nodes in topological order.
	if _, cycle := g.findCycle(npreds, nsuccs[:0]); cycle != nil {
		return nil, g.cycleErr(cycle)
	}
	g.setSinks(sinks)
	return g, nil
}

// smallGraph is a GraphAgent with room for the nodes and links of a graph
// of up to smallGraphNodes nodes and smallGraphEdges edges: most graphs
// are that small, and one allocation for the build saves two. The room
// fills the 640-byte size class the allocator would round it up to.
type smallGraph struct {
	GraphAgent
	nodes [smallGraphNodes]graphNode
	ints  [smallGraphInts]int
}

const (
	smallGraphNodes = 4
	smallGraphEdges = 8
	smallGraphInts  = 2*smallGraphNodes + 2*smallGraphEdges
)

// linkByBits links the nodes of a graph of at most bits.UintSize nodes
// by its edges' ends (see edgeEnds): each node's predecessors and successors go
// into pm and sm (room for a word a node, zero) as bits first, where a
// repeated edge sets a bit already set, and then into links as lists, in
// ascending order as the bits come. The same words then give each node's
// descendants (g.desc, in pm's room) and find a cycle: a node's are its
// successors and theirs, settled once each of its successors' are, and
// nodes on a cycle never are. sinks has room for a node each.
func (g *GraphAgent) linkByBits(ends, links, sinks, pm, sm []int) error {
	for k := 0; k < len(ends); k += 2 {
		from, to := ends[k], ends[k+1]
		pm[to] |= 1 << from
		sm[from] |= 1 << to
	}
	nodes := g.nodes
	at := 0
	for i := range nodes {
		n := &nodes[i]
		n.preds, at = bitList(links, at, uint(pm[i]))
		n.succs, at = bitList(links, at, uint(sm[i]))
		sinks = g.count(i, sinks)
	}
	desc := pm
	var done uint
	for left := len(nodes); left > 0; {
		settled := false
		// Backwards, since successors are mostly declared after their
		// predecessors: most graphs settle in one pass.
		for i := len(nodes) - 1; i >= 0; i-- {
			bit, succs := uint(1)<<i, uint(sm[i])
			if done&bit != 0 || succs&^done != 0 {
				continue
			}
			d := succs
			for b := succs; b != 0; b &= b - 1 {
				d |= uint(desc[bits.TrailingZeros(b)])
			}
			desc[i], done, settled = int(d), done|bit, true
			left--
		}
		if !settled {
			_, cycle := g.findCycle(pm, sm[:0])
			return g.cycleErr(cycle)
		}
	}
	g.desc = desc
	g.setSinks(sinks)
	return nil
}

// bitList writes the indices of set's bits, ascending, into links from at
// and returns them, capped, and where the next list starts.
func bitList(links []int, at int, set uint) ([]int, int) {
	start := at
	for ; set != 0; set &= set - 1 {
		links[at] = bits.TrailingZeros(set)
		at++
	}
	return links[start:at:at], at
}

// edgeEnds writes the indices of the ends of each edge among opts into
// ends, two an edge, or returns the BuildError of an edge naming no node.
func (g *GraphAgent) edgeEnds(opts []GraphOption, index map[string]int, ends []int) error {
	k := 0
	for _, o := range opts {
		e, ok := o.(EdgeOption)
		if !ok {
			continue
		}
		from, to := nodeIndex(g.nodes, index, e.from), nodeIndex(g.nodes, index, e.to)
		switch {
		case from < 0:
			return buildErr(g.name, ErrUnknownKey, fmt.Sprintf("edge %q → %q: no node is named %q", e.from, e.to, e.from), e.from)
		case to < 0:
			return buildErr(g.name, ErrUnknownKey, fmt.Sprintf("edge %q → %q: no node is named %q", e.from, e.to, e.to), e.to)
		}
		ends[k], ends[k+1] = from, to
		k += 2
	}
	return nil
}

// count counts node i, linked, among the sinks (appended to sinks), the
// labelled nodes or the fed ones; it returns sinks.
func (g *GraphAgent) count(i int, sinks []int) []int {
	n := &g.nodes[i]
	if len(n.succs) == 0 {
		sinks = append(sinks, i)
	} else {
		g.labelled++
		g.labelHeads += int32(labelSize(n.key))
	}
	if len(n.preds) > 0 {
		g.fedNodes++
		g.links += int32(len(n.preds))
	}
	return sinks
}

// setSinks keeps sinks, ordered by name.
func (g *GraphAgent) setSinks(sinks []int) {
	if len(sinks) > 1 {
		slices.SortFunc(sinks, func(a, b int) int { return strings.Compare(g.nodes[a].key, g.nodes[b].key) })
	}
	g.sinks = sinks
}

// cycleErr is the BuildError of a graph whose edges form cycle.
func (g *GraphAgent) cycleErr(cycle []string) error {
	return buildErr(g.name, ErrCycle, fmt.Sprintf("the edges form a cycle: %s → %s", joinArrow(cycle), cycle[0]), cycle...)
}

// nodeIndex returns the index of the node named key among nodes (by
// index, when not nil), or -1.
func nodeIndex(nodes []graphNode, index map[string]int, key string) int {
	if index != nil {
		if i, ok := index[key]; ok {
			return i
		}
		return -1
	}
	for i := range nodes {
		if nodes[i].key == key {
			return i
		}
	}
	return -1
}

// strictlyAscending reports whether s is sorted without repeats, as the
// edges of most graphs give a node's links: then they need no sort.
func strictlyAscending(s []int) bool {
	for k := 1; k < len(s); k++ {
		if s[k] <= s[k-1] {
			return false
		}
	}
	return true
}

// ascendingSet returns s sorted without repeats, in place.
func ascendingSet(s []int) []int {
	slices.Sort(s)
	return slices.Compact(s)
}

// graphScan is the largest graph whose nodes a build finds by scanning
// their names; a larger one builds a map.
const graphScan = 16

// findCycle runs Kahn's algorithm in indeg and queue (room for a count and
// an index per node). Without a cycle it returns the nodes in topological
// order, each before its successors, in queue's array. If nodes remain,
// every one of them has a remaining predecessor, so walking predecessors
// from any of them must revisit a node, and the walk between the two
// visits is a cycle.
func (g *GraphAgent) findCycle(indeg, queue []int) (order []int, cycle []string) {
	for i := range g.nodes {
		if indeg[i] = len(g.nodes[i].preds); indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	// The queue is read from its head and kept: what was read is the
	// order.
	for head := 0; head < len(queue); head++ {
		for _, s := range g.nodes[queue[head]].succs {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if len(queue) == len(g.nodes) {
		return queue, nil
	}
	start := slices.IndexFunc(indeg, func(d int) bool { return d > 0 })
	seenAt := map[int]int{}
	var walk []int
	for i := start; ; {
		if at, seen := seenAt[i]; seen {
			walk = walk[at:]
			break
		}
		seenAt[i] = len(walk)
		walk = append(walk, i)
		for _, p := range g.nodes[i].preds {
			if indeg[p] > 0 {
				i = p
				break
			}
		}
	}
	// The walk followed edges backwards; report them forwards.
	slices.Reverse(walk)
	names := make([]string, len(walk))
	for k, i := range walk {
		names[k] = g.nodes[i].key
	}
	return nil, names
}

func joinArrow(names []string) string {
	s := names[0]
	for _, n := range names[1:] {
		s += " → " + n
	}
	return s
}

// The lifecycle of a node within one run.
const (
	nodePending = iota
	nodeRunning
	nodeDone
	nodeFailed
	nodeSkipped
	nodePaused
)

// Run streams one run of the graph. See [Agent].
func (g *GraphAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		direct := yield
		ctx, rc, yield, done, ok := g.beginFanOut(ctx, rc, false, len(g.nodes), yield)
		if !ok {
			return
		}
		defer done()
		g.runNodes(ctx, rc, input, nil, nil, fanOut{yield: yield, direct: direct})
	}
}

// ResumeFrame resumes the nodes that paused and runs on from there; the
// nodes that finished keep their outputs.
func (g *GraphAgent) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return g.resumeChildren(ctx, rc, f, ds, frameGraph, g.nodeKeys(), g.runNodes)
}

// nodeRun is how one node stands within a run of the graph.
type nodeRun struct {
	// status and waiting are int32s, which any graph's counts fit, so
	// that a small graph's run fills one size class (smallRun).
	status   int32
	waiting  int32 // predecessors not yet done
	child    *helikon.RunContext
	resumeAt *ResumePoint
	// label, once a successor needed it, is the content of the node's
	// output as its successors read it (a user message of one text
	// part); they share it as they share the run's input.
	label [1]helikon.ContentPart
}

// graphRun is one run of a graph: its wavefront's standing, the fan-in
// running its nodes and the room their inputs take. start and finish are
// methods on it rather than closures over runNodes' variables, which
// cost every read of them an indirection through the closure.
type graphRun struct {
	g     *GraphAgent
	ctx   context.Context
	rc    *helikon.RunContext
	input []helikon.Item
	f     *fanIn
	nodes []nodeRun
	outs  []helikon.ChildOutcome
	// ready holds the nodes free to start, in the order they became so.
	ready    []int
	children []helikon.RunContext // the nodes' contexts, made at the first start
	running  int
	room     nodeInputs
}

// runNodes runs the graph's wavefront: from the roots, or, resuming, from
// the paused nodes with the finished ones as prior records them. The
// fan-in runs the ready nodes on this goroutine first (see fanIn).
func (g *GraphAgent) runNodes(ctx context.Context, rc *helikon.RunContext, input []helikon.Item, prior []helikon.ChildFrame, ds *helikon.Decisions, out fanOut) {
	n := len(g.nodes)
	yield := out.yield
	r := &graphRun{}
	if k := g.roomItems(len(input)); n <= smallGraphNodes && k <= smallRunItems {
		s := new(smallRun)
		r.f = s.fan.init(ctx, n)
		r.nodes, r.room.items, r.ready = s.nodes[:n], s.items[:k], s.ready[:0]
	} else {
		r.f, r.nodes, r.ready = newFanIn(ctx, n), make([]nodeRun, n), make([]int, 0, n)
	}
	f := r.f
	defer f.close()
	f.graph, f.desc, f.direct = true, g.desc, out.direct
	r.g, r.ctx, r.rc, r.input, r.outs = g, ctx, rc, input, f.outs

	nodes, outs := r.nodes, r.outs
	if prior == nil {
		// A fresh run: every node waits for all its predecessors, and the
		// roots, in declaration order, are ready.
		for i := range nodes {
			if nodes[i].waiting = int32(len(g.nodes[i].preds)); nodes[i].waiting == 0 {
				r.ready = append(r.ready, i)
			}
		}
		f.later = 1<<n - 1
	} else {
		for i, ch := range prior {
			switch ch.Status {
			case helikon.ChildDone:
				nodes[i].status = nodeDone
				outs[i] = helikon.ChildOutcome{Final: ch.Output, Usage: ch.Usage, Finished: true}
				rc.State().SetString(g.nodes[i].key, ch.Output)
			case helikon.ChildPaused:
				nodes[i].resumeAt = &ResumePoint{Frame: ch.Frame, Decisions: ds}
			}
		}
		for i := range g.nodes {
			for _, p := range g.nodes[i].preds {
				if nodes[p].status != nodeDone {
					nodes[i].waiting++
				}
			}
			if nodes[i].status == nodePending {
				f.later |= 1 << i
				if nodes[i].waiting == 0 {
					r.ready = append(r.ready, i)
				}
			}
		}
	}
	for {
		for _, i := range r.ready {
			if !r.start(i, yield) {
				return
			}
		}
		r.ready = r.ready[:0]
		if r.running == 0 {
			break
		}
		i, ok := f.next(yield)
		if !ok {
			return
		}
		r.running--
		r.finish(i)
	}
	r.end(yield)
}

// start hands node i to the fan-in: it returns false when the consumer
// stopped.
func (r *graphRun) start(i int, yield func(helikon.Event) bool) bool {
	node := &r.nodes[i]
	node.status = nodeRunning
	r.f.later &^= 1 << i
	if r.children == nil {
		r.children = r.rc.Children(len(r.nodes))
	}
	node.child = &r.children[i]
	r.running++
	return r.f.add(i, r.g.nodes[i].agent, node.child, r.g.nodeInput(r.input, i, r.nodes, r.outs, &r.room), node.resumeAt, yield)
}

// finish settles node i, which ended, and readies the successors it was
// the last to hold up.
func (r *graphRun) finish(i int) {
	g, nodes, o := r.g, r.nodes, &r.outs[i]
	node := &g.nodes[i]
	if r.rc.Hooks().Len() > 0 {
		// Only hooks read the name: most runs ask no agent for it.
		helikon.SubagentStopped(r.ctx, r.rc, node.agent.Name())
	}
	switch {
	case o.Paused != nil:
		// Its descendants wait for it; independent nodes run on.
		nodes[i].status = nodePaused
	case o.Err != nil:
		nodes[i].status = nodeFailed
		g.skipDescendants(i, nodes)
		if g.desc != nil {
			r.f.later &^= g.desc[i] // skipped: they never start
		}
	default:
		nodes[i].status = nodeDone
		r.rc.State().SetString(node.key, o.Final)
		for _, s := range node.succs {
			if nodes[s].waiting--; nodes[s].waiting == 0 && nodes[s].status == nodePending {
				r.ready = append(r.ready, s)
			}
		}
	}
}

// end ends a run whose nodes have all ended or wait on a paused one: it
// fails, pauses or completes with the sinks' output.
func (r *graphRun) end(yield func(helikon.Event) bool) {
	g, ctx, rc, nodes, outs := r.g, r.ctx, r.rc, r.nodes, r.outs
	var total helikon.Usage
	var failed []ChildFailure
	var skipped []string
	escalated, paused := false, false
	for i := range g.nodes {
		total = total.Add(outs[i].Usage)
		switch nodes[i].status {
		case nodeFailed:
			failed = append(failed, ChildFailure{Key: g.nodes[i].key, Err: outs[i].Err})
		case nodeSkipped:
			skipped = append(skipped, g.nodes[i].key)
		case nodePaused:
			paused = true
		}
		if nodes[i].child != nil {
			escalated = escalated || nodes[i].child.Actions().Escalated()
		}
	}
	if escalated {
		rc.Actions().Escalate()
	}
	if failed != nil {
		wf := &WorkflowError{Agent: g.name, Failed: failed, Skipped: skipped}
		yield(helikon.RunFailed{At: eventclock.Now(), Err: wf.aggregate(ctx)})
		return
	}
	if paused {
		g.pause(rc, r.input, nodes, outs, total, yield)
		return
	}
	final, content := outs[g.sinks[0]].Final, outs[g.sinks[0]].Content
	if len(g.sinks) > 1 {
		content = nil
		final = mergedOutput(len(g.sinks), func(k int) (string, string) {
			i := g.sinks[k]
			return g.nodes[i].key, outs[i].Final
		})
	}
	if !yield(finalMessage(g.name, final, content)) {
		return
	}
	yield(helikon.RunCompleted{At: eventclock.Now(), Agent: g.name, Usage: total})
}

// nodeKeys returns the nodes' names in declaration order.
func (g *GraphAgent) nodeKeys() []string {
	keys := make([]string, len(g.nodes))
	for i, n := range g.nodes {
		keys[i] = n.key
	}
	return keys
}

// pause ends a graph run whose paused nodes hold up the rest: finished
// nodes keep their outputs, paused ones their frames, the others wait.
func (g *GraphAgent) pause(rc *helikon.RunContext, input []helikon.Item, nodes []nodeRun, outs []helikon.ChildOutcome, total helikon.Usage, yield func(helikon.Event) bool) {
	fr := &helikon.PauseFrame{Kind: frameGraph, Agent: g.name, Input: input, Children: make([]helikon.ChildFrame, len(g.nodes))}
	for i, node := range g.nodes {
		ch := helikon.ChildFrame{Key: node.key, Status: helikon.ChildPending}
		switch nodes[i].status {
		case nodeDone:
			ch.Status, ch.Output, ch.Usage = helikon.ChildDone, outs[i].Final, outs[i].Usage
			fr.Usage = fr.Usage.Add(outs[i].Usage)
		case nodePaused:
			ch.Status, ch.Frame, ch.Usage = helikon.ChildPaused, outs[i].Paused.Frame(), outs[i].Usage
		}
		fr.Children[i] = ch
	}
	helikon.EmitPaused(rc, g.name, fr, total, yield)
}

// nodeInputs holds room for the nodes' inputs within one run: items for
// every node's input not built yet, made at its first use (or with the
// run's nodes, for a small graph), one array for all the nodes rather
// than one for each, and text, the bytes of every label built so far. A
// label's content lives in its node's nodeRun.
type nodeInputs struct {
	items []helikon.Item
	// text holds the labels' texts one after another: each label is a
	// substring of what it held once the label was written, which a
	// later write never changes. The first label reserves room for the
	// rest (see nodeInput), so a small graph's labels cost one
	// allocation for all their bytes.
	text strings.Builder
	// labelled counts the labels built so far.
	labelled int
}

// smallRun holds a run of a small graph, its fan-in, nodes and their
// inputs' items in one allocation, when the inputs need no more than
// smallRunItems: a diamond on a one-message input needs 7, as many as
// fill the 1,792-byte size class.
type smallRun struct {
	fan   smallFanIn
	nodes [smallGraphNodes]nodeRun
	ready [smallGraphNodes]int
	items [smallRunItems]helikon.Item
}

const smallRunItems = 7

// A small graph's run holds its fan-in's room (smallRun.fan).
const _ = uint(smallFan - smallGraphNodes)

// nodeInput is node i's input: the run's input, then one labelled message
// per predecessor carrying its final text.
func (g *GraphAgent) nodeInput(input []helikon.Item, i int, nodes []nodeRun, outs []helikon.ChildOutcome, room *nodeInputs) []helikon.Item {
	preds := g.nodes[i].preds
	if len(preds) == 0 {
		return input
	}
	n := len(input) + len(preds)
	if len(room.items) < n {
		// The first fed node makes room for all of them; a node built
		// again (none is today) gets room of its own rather than a slice
		// out of range.
		room.items = make([]helikon.Item, max(n, g.roomItems(len(input))))
	}
	// Capped at its length: a child that appends to its input copies it
	// rather than writing into the next node's.
	in := room.items[:len(input):n]
	room.items = room.items[n:]
	copy(in, input)
	finals, labels := 0, 0
	for _, p := range preds {
		if nodes[p].label[0] == nil {
			finals += len(outs[p].Final)
			labels++
		}
	}
	if labels > 0 && room.labelled == 0 {
		room.text.Grow(labelRoom(int(g.labelHeads), finals, labels, int(g.labelled)-labels))
	}
	for _, p := range preds {
		if nodes[p].label[0] == nil {
			text := &room.text
			start := text.Len()
			text.WriteString(labelHead)
			text.WriteString(g.nodes[p].key)
			text.WriteString(labelTail)
			text.WriteString(outs[p].Final)
			nodes[p].label[0] = helikon.TextPart{Text: text.String()[start:]}
		}
		in = append(in, helikon.Item{Role: helikon.RoleUser, Content: nodes[p].label[:]})
	}
	room.labelled += labels
	return in
}

// roomItems is how many items the nodes' inputs hold in a run on an
// input of n items.
func (g *GraphAgent) roomItems(n int) int { return int(g.fedNodes)*n + int(g.links) }

// labelSize is the length of the head of node key's label: labelHead, the
// name, labelTail.
func labelSize(key string) int { return len(labelHead) + len(key) + len(labelTail) }

// labelRoom is the room the first labels of a run reserve, labels of
// them with finals bytes of texts: every label's head (heads, known since
// the build), their texts, and for each of the rest labels still to come
// a text as long as theirs on average, from labelSlack up to
// labelReserveMax. The cap keeps one long answer (a model's, as long as
// it likes) from reserving its length again for every label to come; a
// longer text grows the room when it comes.
func labelRoom(heads, finals, labels, rest int) int {
	return heads + finals + rest*min(max(finals/labels, labelSlack), labelReserveMax)
}

// labelSlack and labelReserveMax bound the room the first labels of a run
// reserve for each of the others' texts.
const (
	labelSlack      = 32
	labelReserveMax = 4 << 10
)

// A predecessor's label in a node's input: labelHead, its name, labelTail,
// its final text.
const (
	labelHead = "Output of "
	labelTail = ":\n"
)

// skipDescendants marks every pending node reachable from i as skipped. None
// of them can have started: each waits on i.
func (g *GraphAgent) skipDescendants(i int, nodes []nodeRun) {
	for _, s := range g.nodes[i].succs {
		if nodes[s].status == nodePending {
			nodes[s].status = nodeSkipped
			g.skipDescendants(s, nodes)
		}
	}
}
