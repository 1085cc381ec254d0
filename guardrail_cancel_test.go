package helikon_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// waitingModel streams nothing until its call is cancelled, then ends
// with the context's error, as a provider's stream does.
type waitingModel struct{}

func (waitingModel) Invoke(ctx context.Context, _ *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		<-ctx.Done()
		yield(nil, ctx.Err())
	}
}

func (waitingModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

// TestInputGuardrail_ATripwireOnACancellableRunFailsAsGuardrailNotCancelled
// pins that the tripwire which cancels the first model call fails the run
// as a guardrail: the call's end must not cancel the run itself (a run on
// a cancellable context, as every server request is, read as cancelled
// about half the time under -race before).
func TestInputGuardrail_ATripwireOnACancellableRunFailsAsGuardrailNotCancelled(t *testing.T) {
	trip := helikon.GuardrailFunc(func(context.Context, *helikon.RunContext, helikon.GuardrailInput) (*helikon.Tripwire, error) {
		return &helikon.Tripwire{Kind: helikon.GuardrailInputPolicy, Reason: "no"}, nil
	})
	ag := mustAgent(t, "guarded", waitingModel{}, helikon.WithInputGuardrails(trip))
	for i := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := helikon.Collect(ag.Run(ctx, nil, helikon.UserText("hi")))
		cancel()
		var ae *helikon.AgentError
		if !errors.As(err, &ae) || ae.Kind != helikon.KindGuardrail {
			t.Fatalf("run %d: %v, want a guardrail failure", i, err)
		}
	}
}
