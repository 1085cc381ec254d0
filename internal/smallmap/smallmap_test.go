package smallmap

import (
	"fmt"
	"testing"
)

func TestMap_KeepsEveryKeyAcrossTheSwitchToAMap(t *testing.T) {
	for _, n := range []int{0, 1, Inline, Inline + 1, 3 * Inline} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var m Map[int]
			want := map[string]int{}
			for i := range n {
				k := fmt.Sprint("k", i)
				m.Set(k, i)
				m.Set(k, i+100) // set again: replaces
				want[k] = i + 100
			}
			for k, v := range want {
				if got, ok := m.Get(k); !ok || got != v {
					t.Errorf("Get(%q) = %v, %v; want %v", k, got, ok, v)
				}
			}
			if _, ok := m.Get("absent"); ok {
				t.Error("Get of an absent key found it")
			}
			got := CloneFunc(&m, func(v int) string { return fmt.Sprint(v) })
			if n == 0 && got != nil {
				t.Errorf("CloneFunc of an empty map = %v, want nil", got)
			}
			if len(got) != len(want) {
				t.Errorf("CloneFunc = %v, want %v", got, want)
			}
			for k, v := range want {
				if got[k] != fmt.Sprint(v) {
					t.Errorf("CloneFunc[%q] = %q, want %d converted", k, got[k], v)
				}
			}
		})
	}
}
