// Package benchpair measures two operations side by side in one benchmark,
// so that their ratio holds on a noisy machine: each iteration runs both,
// in alternating order, and the times are summed separately.
package benchpair

import (
	"testing"
	"time"
)

// Run runs base and other once per b.Loop iteration, alternating which goes
// first, and reports ns-<baseName>/op, ns-<otherName>/op and
// x-<baseName> (other's time over base's). It returns the two totals, for
// figures of the caller's own (a throughput, a cost per step).
func Run(b *testing.B, baseName string, base func(), otherName string, other func()) (tBase, tOther time.Duration) {
	odd := false
	for b.Loop() {
		first, second := base, other
		if odd {
			first, second = other, base
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		t2 := time.Now()
		if odd {
			tOther, tBase = tOther+t1.Sub(t0), tBase+t2.Sub(t1)
		} else {
			tBase, tOther = tBase+t1.Sub(t0), tOther+t2.Sub(t1)
		}
		odd = !odd
	}
	b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "ns-"+baseName+"/op")
	b.ReportMetric(float64(tOther.Nanoseconds())/float64(b.N), "ns-"+otherName+"/op")
	b.ReportMetric(float64(tOther)/float64(tBase), "x-"+baseName)
	return tBase, tOther
}
