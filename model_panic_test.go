package helikon_test

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"runtime"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// panickingModel panics while its stream is read, as a buggy provider
// adapter or a custom model may; honours sets what it reports of
// cancellation, which decides whether a cancellable run reads it on a
// worker or on its own goroutine.
type panickingModel struct{ honours bool }

func (panickingModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(func(helikon.ModelEvent, error) bool) { panic("boom") }
}

func (m panickingModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true, HonoursCancellation: m.honours}
}

// TestModel_APanicFailsTheRunNotTheProcess pins that a model's panic fails
// the run with a model error wherever its stream is read: on a worker no
// caller can recover (a cancellable run, a model that does not promise to
// honour cancellation), or on the run's own goroutine (a run on
// context.Background, a model that promises it), where it reached the
// consumer as a panic before.
func TestModel_APanicFailsTheRunNotTheProcess(t *testing.T) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		honours bool
	}{
		{"background", context.Background(), false},
		{"cancellable, read on a worker", cancellable, false},
		{"cancellable, read inline", cancellable, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ag := mustAgent(t, "panicky", panickingModel{honours: c.honours})
			_, err := helikon.Collect(ag.Run(c.ctx, nil, helikon.UserText("hi")))
			var me *helikon.ModelError
			if !errors.As(err, &me) || me.Kind != helikon.ModelOther {
				t.Fatalf("run ended with %v, want a model error", err)
			}
		})
	}
}

// TestModel_TheConsumersPanicIsTheConsumers pins that a panic raised by
// the consumer while it takes a model's event reaches the consumer as it
// was raised: the loop recovers the model's panics, not the caller's.
func TestModel_TheConsumersPanicIsTheConsumers(t *testing.T) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), cancellable} {
		ag := mustAgent(t, "a", mock.Scripted(mock.Deltas("one ", "two")))
		got := func() (r any) {
			defer func() { r = recover() }()
			for ev := range ag.Run(ctx, nil, helikon.UserText("hi")) {
				if _, ok := ev.(helikon.TokenDelta); ok {
					panic("consumer bug")
				}
			}
			return nil
		}()
		if got != "consumer bug" {
			t.Errorf("recovered %v, want the consumer's own panic", got)
		}
	}
}

// goroutineID returns the id runtime.Stack prints for the calling
// goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf, _, _ = bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(buf)
}

// goroutineModel streams one delta and records the goroutine it streams
// on.
type goroutineModel struct {
	honours bool
	on      *string
}

func (m goroutineModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		*m.on = goroutineID()
		if yield(helikon.TokenDelta{Text: "hi"}, nil) {
			yield(helikon.Finish{Reason: helikon.FinishStop}, nil)
		}
	}
}

func (m goroutineModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true, HonoursCancellation: m.honours}
}

// TestModel_ACancellableRunReadsAnHonouringModelOnItsOwnGoroutine pins
// where a cancellable run reads its model: on the consumer's goroutine,
// with no hand-off, when the model promises to honour cancellation; on a
// worker, which a model ignoring cancellation cannot hold the run on,
// when it does not.
func TestModel_ACancellableRunReadsAnHonouringModelOnItsOwnGoroutine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, honours := range []bool{true, false} {
		var on string
		ag := mustAgent(t, "a", goroutineModel{honours: honours, on: &on})
		res, err := helikon.Collect(ag.Run(ctx, nil, helikon.UserText("q")))
		if err != nil || res.FinalOutput != "hi" {
			t.Fatalf("honours %v: %q, %v", honours, res.FinalOutput, err)
		}
		if inline := on == goroutineID(); inline != honours {
			t.Errorf("honours %v: read on the consumer's goroutine = %v", honours, inline)
		}
	}
}
