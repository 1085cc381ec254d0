package benchpair_test

import (
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/benchpair"
)

// The slower operation's ratio comes out above 1 whichever runs first.
func BenchmarkRun(b *testing.B) {
	benchpair.Run(b, "fast", func() {}, "slow", func() { time.Sleep(time.Microsecond) })
}

func TestRun_ReportsBothAndTheRatio(t *testing.T) {
	var fast, slow int
	res := testing.Benchmark(func(b *testing.B) {
		benchpair.Run(b, "fast", func() { fast++ }, "slow", func() { slow++; time.Sleep(50 * time.Microsecond) })
	})
	if fast != slow || fast == 0 {
		t.Fatalf("ran fast %d and slow %d times, want equal counts", fast, slow)
	}
	for _, m := range []string{"ns-fast/op", "ns-slow/op", "x-fast"} {
		if _, ok := res.Extra[m]; !ok {
			t.Errorf("metric %q missing: %v", m, res.Extra)
		}
	}
	if res.Extra["x-fast"] <= 1 {
		t.Errorf("ratio = %v, want the sleeping side slower", res.Extra["x-fast"])
	}
}
