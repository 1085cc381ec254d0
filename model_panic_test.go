package helikon_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// panickingModel panics while its stream is read, as a buggy provider
// adapter or a custom model may.
type panickingModel struct{}

func (panickingModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(func(helikon.ModelEvent, error) bool) { panic("boom") }
}

func (panickingModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

// TestModel_APanicOnACancellableRunFailsTheRunNotTheProcess pins that a
// model's panic on a cancellable run, whose stream is read on a worker
// goroutine no caller can recover, fails the run with a model error.
func TestModel_APanicOnACancellableRunFailsTheRunNotTheProcess(t *testing.T) {
	ag := mustAgent(t, "panicky", panickingModel{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := helikon.Collect(ag.Run(ctx, nil, helikon.UserText("hi")))
	var me *helikon.ModelError
	if !errors.As(err, &me) || me.Kind != helikon.ModelOther {
		t.Fatalf("run ended with %v, want a model error", err)
	}
}
