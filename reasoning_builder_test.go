package helikon_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestReasoningBuilder_GathersThePartsTheStreamDescribes(t *testing.T) {
	type d = helikon.ReasoningDelta
	type p = helikon.ReasoningPart
	for _, tc := range []struct {
		name   string
		deltas []d
		want   []p
	}{
		{"nothing", nil, nil},
		{"deltas of one block join", []d{{Text: "a"}, {Text: "b"}, {Text: "c"}}, []p{{Text: "abc"}}},
		{"a signature completes its block", []d{{Text: "a"}, {Text: "b"}, {Signature: "s1"}, {Text: "c"}, {Signature: "s2"}},
			[]p{{Text: "ab", Signature: "s1"}, {Text: "c", Signature: "s2"}}},
		{"redacted data completes its block", []d{{Text: "a"}, {Data: "x"}, {Text: "b"}},
			[]p{{Text: "a", Data: "x"}, {Text: "b"}}},
		{"another item's ID opens a part", []d{{Text: "a", ID: "r1"}, {Text: "b", ID: "r1"}, {Text: "c", ID: "r2"}, {Text: "d"}},
			[]p{{Text: "ab", ID: "r1"}, {Text: "cd", ID: "r2"}}},
		{"a delta after a signature opens a part", []d{{Text: "a"}, {Signature: "s"}, {Signature: "ig"}},
			[]p{{Text: "a", Signature: "s"}, {Signature: "ig"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b helikon.ReasoningBuilder
			for _, e := range tc.deltas {
				b.Add(e)
			}
			if got := b.Parts(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Parts = %#v, want %#v", got, tc.want)
			}
			if b.Len() != len(tc.want) {
				t.Fatalf("Len = %d, want %d", b.Len(), len(tc.want))
			}
			// The deprecated AppendTo describes the same parts.
			var old []p
			for _, e := range tc.deltas {
				old = e.AppendTo(old)
			}
			if !reflect.DeepEqual(old, tc.want) {
				t.Fatalf("AppendTo = %#v, want %#v", old, tc.want)
			}
		})
	}
}

func TestReasoningBuilder_PartsTakenMidStreamKeepWhatTheyHeld(t *testing.T) {
	var b helikon.ReasoningBuilder
	b.Add(helikon.ReasoningDelta{Text: "ab"})
	early := b.Parts()
	b.Add(helikon.ReasoningDelta{Text: "cd"})
	if early[0].Text != "ab" {
		t.Fatalf("the parts taken earlier changed: %q", early[0].Text)
	}
	if got := b.Parts(); len(got) != 1 || got[0].Text != "abcd" {
		t.Fatalf("the stream after Parts = %#v, want one part abcd", got)
	}
	b.Reset()
	if b.Len() != 0 || b.Parts() != nil {
		t.Fatalf("Reset left %d parts", b.Len())
	}
}

// A reasoning model streams its thinking in thousands of small deltas. Each
// one extending the part's strings copied the whole part (1,600 MB of
// garbage for these 20,000 deltas of 8 bytes); gathered in builders, the
// turn's garbage is a small multiple of its text.
func TestRun_ALongReasoningStreamCostsMemoryLinearInItsLength(t *testing.T) {
	const n, size = 20_000, 8
	evs := make([]helikon.ModelEvent, 0, n+2)
	for range n {
		evs = append(evs, helikon.ReasoningDelta{Text: strings.Repeat("r", size)})
	}
	evs = append(evs, helikon.TokenDelta{Text: "done"}, helikon.Finish{Reason: helikon.FinishStop})
	a, err := helikon.NewAgent("thinker", mock.Scripted(mock.Events(evs...)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []helikon.ContentPart
	for ev := range a.Run(context.Background(), nil, helikon.UserText("think")) {
		if m, ok := ev.(helikon.MessageOutput); ok {
			got = m.Item.Content
		}
	}
	runtime.ReadMemStats(&after)
	if len(got) != 2 {
		t.Fatalf("the answer holds %d parts, want the reasoning and the text", len(got))
	}
	if r, ok := got[0].(helikon.ReasoningPart); !ok || len(r.Text) != n*size {
		t.Fatalf("the reasoning part is %#v, want %d bytes of text", got[0], n*size)
	}
	// The deltas' events themselves take some 3 MB; copying the part at
	// every delta took 1,600 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("the run allocated %d MB for %d KB of reasoning", alloc>>20, n*size>>10)
	}
}

// BenchmarkRunReasoning2000Deltas runs one turn that thinks in 2,000
// deltas of 16 bytes, as a reasoning model streams 32 KB of thinking, and
// then answers.
func BenchmarkRunReasoning2000Deltas(b *testing.B) {
	evs := make([]helikon.ModelEvent, 0, 2002)
	for range 2000 {
		evs = append(evs, helikon.ReasoningDelta{Text: "thinking, step.."})
	}
	evs = append(evs, helikon.TokenDelta{Text: "done"}, helikon.Finish{Reason: helikon.FinishStop})
	ctx, input := context.Background(), helikon.UserText("think")
	b.ReportAllocs()
	for b.Loop() {
		a, err := helikon.NewAgent("thinker", mock.Scripted(mock.Events(evs...)))
		if err != nil {
			b.Fatal(err)
		}
		for ev := range a.Run(ctx, nil, input) {
			if f, ok := ev.(helikon.RunFailed); ok {
				b.Fatal(f.Err)
			}
		}
	}
}

func ExampleReasoningBuilder() {
	var b helikon.ReasoningBuilder
	for _, e := range []helikon.ReasoningDelta{
		{Text: "The user wants "}, {Text: "a sum."}, {Signature: "sig-1"}, // one signed block
		{Text: "Add them."}, // the next block
	} {
		b.Add(e)
	}
	for _, p := range b.Parts() {
		fmt.Printf("%q signed %q\n", p.Text, p.Signature)
	}
	// Output:
	// "The user wants a sum." signed "sig-1"
	// "Add them." signed ""
}
