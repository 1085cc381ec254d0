package straggler

import (
	"context"
	"errors"
	"testing"
)

func TestWait_ReturnsOnceEveryStragglerIsDone(t *testing.T) {
	if err := Wait(context.Background()); err != nil {
		t.Fatalf("Wait with none running: %v", err)
	}
	Add(2)
	Add(0) // counts none
	if got := Count(); got != 2 {
		t.Fatalf("Count = %d, want 2", got)
	}
	waited := make(chan error, 1)
	go func() { waited <- Wait(context.Background()) }()
	Done()
	select {
	case err := <-waited:
		t.Fatalf("Wait returned %v with one straggler still running", err)
	default:
	}
	Done()
	if err := <-waited; err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if got := Count(); got != 0 {
		t.Fatalf("Count = %d after both returned, want 0", got)
	}
}

func TestWait_EndsWithTheContext(t *testing.T) {
	Add(1)
	defer Done()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a cancelled context = %v, want context.Canceled", err)
	}
}
