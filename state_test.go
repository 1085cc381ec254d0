package helikon

import (
	"fmt"
	"maps"
	"sync"
	"testing"
	"unsafe"

	"github.com/paigasus/helikon/internal/smallmap"
)

// TestState_KeepsEveryKeyAcrossTheSwitchToAMap sets up to twice as many
// keys as a State holds without a map, each set again with a new value,
// and checks Get, String and Snapshot against a plain map after every
// step.
func TestState_KeepsEveryKeyAcrossTheSwitchToAMap(t *testing.T) {
	for _, n := range []int{0, 1, smallmap.Inline - 1, smallmap.Inline, smallmap.Inline + 1, 2 * smallmap.Inline} {
		t.Run(fmt.Sprint(n, "keys"), func(t *testing.T) {
			s := NewState()
			want := map[string]any{}
			check := func(step string) {
				t.Helper()
				got := s.Snapshot()
				if len(want) == 0 && got != nil {
					t.Fatalf("%s: snapshot of an empty state %v, want nil", step, got)
				}
				if !maps.Equal(got, want) {
					t.Fatalf("%s: snapshot %v, want %v", step, got, want)
				}
				for k, v := range want {
					if g, ok := s.Get(k); !ok || g != v {
						t.Fatalf("%s: Get(%q) = %v, %v; want %v", step, k, g, ok, v)
					}
				}
				if v, ok := s.Get("absent"); ok {
					t.Fatalf("%s: Get(absent) = %v, true", step, v)
				}
			}
			check("empty")
			for i := range n {
				k := fmt.Sprint("k", i)
				s.Set(k, k)
				want[k] = k
				check("set " + k)
			}
			for i := range n {
				k := fmt.Sprint("k", i)
				s.Set(k, i)
				want[k] = i
				check("reset " + k)
				if got := s.String(k); got != "" {
					t.Fatalf("String(%q) of an int = %q", k, got)
				}
			}
		})
	}
}

// fewKeys returns smallmap.Inline keys, each its own value, and what a
// fresh State allocates when set writes them all.
func fewKeys(t *testing.T, set func(s *State, key string)) ([]string, float64) {
	keys := make([]string, smallmap.Inline)
	for i := range keys {
		keys[i] = fmt.Sprint("node", i)
	}
	allocs := testing.AllocsPerRun(100, func() {
		s := NewState()
		for _, k := range keys {
			set(s, k)
		}
		if s.String(keys[0]) != keys[0] {
			t.Fatal("lost a key")
		}
	})
	return keys, allocs
}

// TestState_FewKeysMakeNoMap pins that a State of up to smallmap.Inline keys
// makes no map: its entries take one allocation at the first Set, and
// each string its box.
func TestState_FewKeysMakeNoMap(t *testing.T) {
	_, allocs := fewKeys(t, func(s *State, k string) { s.Set(k, k) })
	// The State, its entries and one box per value.
	if want := float64(2 + smallmap.Inline); allocs != want {
		t.Errorf("%d keys allocate %v times, want %v", smallmap.Inline, allocs, want)
	}
}

// TestState_SetStringBoxesNothing pins SetString: the strings a workflow
// writes cost no box each, and every reader sees them as Set would have
// stored them.
func TestState_SetStringBoxesNothing(t *testing.T) {
	keys, allocs := fewKeys(t, func(s *State, k string) { s.SetString(k, k) })
	// The State and its entries.
	if allocs != 2 {
		t.Errorf("%d strings allocate %v times, want 2", smallmap.Inline, allocs)
	}
	set, setString := NewState(), NewState()
	for _, k := range keys {
		set.Set(k, k)
		setString.SetString(k, k)
	}
	for _, k := range append(keys, "absent") {
		v, ok := setString.Get(k)
		w, wok := set.Get(k)
		if v != w || ok != wok || setString.String(k) != set.String(k) {
			t.Errorf("key %q: Get %v, %v and String %q; Set gives %v, %v and %q", k, v, ok, setString.String(k), w, wok, set.String(k))
		}
	}
	if got, want := setString.Snapshot(), set.Snapshot(); !maps.Equal(got, want) {
		t.Errorf("Snapshot %v, want %v", got, want)
	}
}

// TestState_IsSafeForConcurrentUse sets and reads keys from several
// goroutines across the switch to a map; run it with -race.
func TestState_IsSafeForConcurrentUse(t *testing.T) {
	s := NewState()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 * smallmap.Inline {
				k := fmt.Sprint("g", g, "k", i)
				s.Set(k, i)
				if v, ok := s.Get(k); !ok || v != i {
					t.Errorf("Get(%q) = %v, %v", k, v, ok)
				}
				_ = s.Snapshot()
			}
		})
	}
	wg.Wait()
	if got := len(s.Snapshot()); got != 4*3*smallmap.Inline {
		t.Errorf("%d keys, want %d", got, 4*3*smallmap.Inline)
	}
}

// TestState_NeverWrittenStaysTheSizeOfItsLock pins that the room for a
// State's entries is not part of every run's State: most runs never
// write theirs.
func TestState_NeverWrittenStaysTheSizeOfItsLock(t *testing.T) {
	if got, lock := unsafe.Sizeof(State{}), unsafe.Sizeof(sync.RWMutex{}); got > lock+unsafe.Sizeof(uintptr(0)) {
		t.Errorf("a State is %d bytes, want at most its lock and a pointer, %d", got, lock+unsafe.Sizeof(uintptr(0)))
	}
}
