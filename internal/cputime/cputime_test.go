package cputime_test

import (
	"runtime"
	"testing"

	"github.com/paigasus/helikon/internal/cputime"
)

func TestPerCall_CountsWorkDone(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("process CPU time is not readable on " + runtime.GOOS)
	}
	sink := 0
	busy := func() {
		for i := range 2_000_000 {
			sink += i % 7
		}
	}
	if got := cputime.PerCall(busy, 20); got <= 0 {
		t.Fatalf("PerCall of a busy loop = %v ns, want more than 0", got)
	}
	_ = sink
}
