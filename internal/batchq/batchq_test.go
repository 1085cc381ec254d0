package batchq

import (
	"context"
	"slices"
	"testing"
)

func TestQueue_DeliversInOrderAndReportsTheClose(t *testing.T) {
	q := New[int](2, 1000)
	ctx := context.Background()
	for i := range 5 {
		q.Push(ctx, i)
	}
	<-q.Ready()
	batch, closed := q.Take()
	if !slices.Equal(batch, []int{0, 1, 2, 3, 4}) || closed {
		t.Fatalf("Take = %v, %v; want [0 1 2 3 4], false", batch, closed)
	}
	q.Release(batch)
	q.Push(ctx, 5)
	q.Close()
	batch, closed = q.Take()
	if !slices.Equal(batch, []int{5}) || !closed {
		t.Fatalf("Take = %v, %v; want [5], true", batch, closed)
	}
}

// TestQueue_AnUnreleasedBatchIsNeverFilledAgain pins that a consumer that
// leaves without handing its batch back (a stream it stopped reading)
// cannot see the producer of the next stream append into that batch.
func TestQueue_AnUnreleasedBatchIsNeverFilledAgain(t *testing.T) {
	q := New[int](4, 1000)
	ctx := context.Background()
	q.Push(ctx, 1)
	held, _ := q.Take() // never released
	q.Reset()
	q.Push(ctx, 2)
	batch, _ := q.Take()
	q.Push(ctx, 3)
	if held[0] != 1 || !slices.Equal(batch, []int{2}) {
		t.Fatalf("held %v, batch %v: a later push wrote into a batch the consumer holds", held, batch)
	}
	if &held[:1][0] == &batch[:1][0] {
		t.Fatal("two batches share one array")
	}
}

func TestQueue_AFullQueueHoldsTheProducerUntilTakeOrItsContextEnds(t *testing.T) {
	q := New[int](2, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q.Push(ctx, 0)
	pushed := make(chan bool, 1)
	go func() { pushed <- q.Push(ctx, 1) }() // fills the queue: waits for a Take
	var got []int
	for len(got) < 2 {
		<-q.Ready()
		batch, _ := q.Take()
		got = append(got, batch...)
		q.Release(batch)
	}
	if !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("took %v, want [0 1]", got)
	}
	if ok := <-pushed; !ok {
		t.Fatal("Push returned false after a Take made room")
	}
	q.Push(ctx, 2)
	blocked := make(chan bool, 1)
	go func() { blocked <- q.Push(ctx, 3) }() // fills it again; nobody takes
	cancel()
	if ok := <-blocked; ok {
		t.Fatal("Push on a full queue returned true after its context ended")
	}
}
