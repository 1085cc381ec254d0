package grace

import (
	"testing"
	"time"
)

func TestTimer(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	for _, tc := range []struct {
		name  string
		timer Timer
		done  chan struct{}
		want  bool
	}{
		{"done before the period ends", New(time.Hour, true), closed, true},
		{"a period that ends first", New(time.Nanosecond, true), make(chan struct{}), false},
		{"without bound, done", New(time.Nanosecond, false), closed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.timer
			defer g.Stop()
			if g.Expired() != nil {
				t.Fatal("Expired is not nil before Start")
			}
			if got := g.Wait(tc.done); got != tc.want {
				t.Fatalf("Wait = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTimer_WithoutBoundNeverExpires(t *testing.T) {
	var g Timer // the zero value: no bound
	g.Start()
	if g.Expired() != nil {
		t.Fatal("a period without bound has an expiry channel")
	}
}
