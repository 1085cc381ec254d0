package eventclock

import (
	"testing"
	"time"
)

var sink time.Time

// BenchmarkNow is one event's stamp; BenchmarkTimeNowUTC, what it was
// before this package, is its baseline.
func BenchmarkNow(b *testing.B) {
	for b.Loop() {
		sink = Now()
	}
}

func BenchmarkTimeNowUTC(b *testing.B) {
	for b.Loop() {
		sink = time.Now().UTC()
	}
}
