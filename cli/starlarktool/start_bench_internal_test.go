package starlarktool

import (
	"context"
	"testing"
)

// BenchmarkWorkerStart times a fresh worker from exec to its hello (caps
// set, ready for a load) and its end: what a pool pays for each worker it
// starts.
func BenchmarkWorkerStart(b *testing.B) {
	ctx := context.Background()
	lim := DefaultLimits()
	for b.Loop() {
		w, err := startProcess(ctx, workerSpec{MemoryBytes: lim.MemoryBytes, CPUSeconds: cpuLifetime})
		if err != nil {
			b.Fatal(err)
		}
		w.kill()
	}
}
