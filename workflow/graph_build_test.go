package workflow

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/paigasus/helikon"
)

// stubAgent is an agent that is never run: the build reads only its name.
type stubAgent struct{ name string }

func (a stubAgent) Name() string        { return a.name }
func (a stubAgent) Description() string { return "" }
func (a stubAgent) Run(context.Context, *helikon.RunContext, []helikon.Item) iter.Seq[helikon.Event] {
	return func(func(helikon.Event) bool) {}
}

// TestNewGraph_DescendantsAndLinksMatchABruteForce builds random acyclic
// graphs, their nodes declared in any order and their edges repeated, and
// holds each node's descendant set (which decides what may run on the
// consumer's goroutine) to a depth-first walk, and its predecessors and
// successors to sorted lists without repeats. Most are small; every tenth
// has more nodes than a word has bits, which the build links as lists
// and gives no descendant sets.
func TestNewGraph_DescendantsAndLinksMatchABruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	for try := range 500 {
		n := 1 + rng.IntN(12)
		if try%10 == 9 {
			n = bits.UintSize - 2 + rng.IntN(5)
		}
		rank := rng.Perm(n) // an edge goes from a lower rank to a higher one
		var opts []GraphOption
		for i := range n {
			opts = append(opts, Node(fmt.Sprint("n", i), stubAgent{fmt.Sprint("a", i)}))
		}
		succs := make([][]int, n)
		for range rng.IntN(3 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			if rank[a] == rank[b] {
				continue
			}
			if rank[a] > rank[b] {
				a, b = b, a
			}
			succs[a] = append(succs[a], b)
			opts = append(opts, Edge(fmt.Sprint("n", a), fmt.Sprint("n", b)))
		}
		g, err := NewGraph("g", opts...)
		if err != nil {
			t.Fatalf("try %d: %v", try, err)
		}
		var reach func(i int, seen []bool)
		reach = func(i int, seen []bool) {
			for _, s := range succs[i] {
				if !seen[s] {
					seen[s] = true
					reach(s, seen)
				}
			}
		}
		for i := range n {
			seen := make([]bool, n)
			reach(i, seen)
			want := 0
			for s, ok := range seen {
				if ok {
					want |= 1 << s
				}
			}
			if g.desc == nil {
				if n <= bits.UintSize {
					t.Fatalf("try %d: a graph of %d nodes has no descendant sets", try, n)
				}
			} else if n > bits.UintSize {
				t.Fatalf("try %d: a graph of %d nodes has descendant sets", try, n)
			} else if g.desc[i] != want {
				t.Fatalf("try %d: node %d's descendants %b, want %b", try, i, g.desc[i], want)
			}
			wantSuccs := slices.Compact(slices.Sorted(slices.Values(succs[i])))
			if !slices.Equal(g.nodes[i].succs, wantSuccs) || !slices.IsSorted(g.nodes[i].preds) || len(slices.Compact(slices.Clone(g.nodes[i].preds))) != len(g.nodes[i].preds) {
				t.Fatalf("try %d: node %d's successors %v (want %v), predecessors %v", try, i, g.nodes[i].succs, wantSuccs, g.nodes[i].preds)
			}
		}
	}
}

// TestNewGraph_ASmallGraphFillsItsSizeClass pins the room a small graph
// holds in its own allocation to the size class the allocator rounds it
// up to: more room than that would cost every such build bytes no graph
// of that size needs.
func TestNewGraph_ASmallGraphFillsItsSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(smallGraph{}); size > 640 || size <= 640-unsafe.Sizeof(0)*4 {
		t.Errorf("a smallGraph is %d bytes, want the most that fits 640 (the size class) in ints", size)
	}
}

// TestGraph_ASmallGraphsRunFits1792Bytes pins the room a run of a small
// graph takes in one allocation (its fan-in, nodes and inputs' items) to
// the 1,792-byte size class: one byte more and the allocator rounds it up
// to 2,048. The fan-in's pool state, which most runs never use, lies
// outside it (fanPool).
func TestGraph_ASmallGraphsRunFits1792Bytes(t *testing.T) {
	if size := unsafe.Sizeof(smallRun{}); size > 1792 {
		t.Errorf("a smallRun is %d bytes, want at most 1,792 (a size class)", size)
	}
}
