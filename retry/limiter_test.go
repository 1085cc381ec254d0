package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// invokeBy runs one call with a deadline far shorter than a limiter's
// refill, so a call the limiter would hold fails at once instead.
func invokeBy(m helikon.Model) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, err := range m.Invoke(ctx, &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestLimiter_SharedRequestBudgetHoldsEveryModelUsingIt(t *testing.T) {
	l, err := NewLimiter(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mock.Scripted(mock.Text("a")), mock.Scripted(mock.Text("b"))
	ma, _ := New(a, WithLimiter(l))
	mb, _ := New(b, WithLimiter(l))
	if err := invokeBy(ma); err != nil {
		t.Fatal(err)
	}
	// The minute's one request is spent: the other model must wait ~60s,
	// longer than its deadline.
	err = invokeBy(mb)
	if !errors.Is(err, helikon.ErrRateLimited) {
		t.Fatalf("err = %v, want a client-side RateLimited", err)
	}
	if len(b.Requests()) != 0 {
		t.Fatal("the limited call reached the model")
	}
}

func TestLimiter_TokensBeyondTheEstimateAreChargedAsDebt(t *testing.T) {
	l, err := NewLimiter(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	inner := mock.Scripted(
		mock.Events(helikon.TokenDelta{Text: "long"}, helikon.Usage{InputTokens: 200, OutputTokens: 900}, helikon.Finish{Reason: helikon.FinishStop}),
		mock.Text("next"),
	)
	m, _ := New(inner, WithLimiter(l))
	if err := invokeBy(m); err != nil {
		t.Fatal(err)
	}
	if err := invokeBy(m); !errors.Is(err, helikon.ErrRateLimited) {
		t.Fatalf("second call after spending the minute's tokens: err = %v", err)
	}
	if n := len(inner.Requests()); n != 1 {
		t.Fatalf("%d requests reached the model", n)
	}
}

func TestLimiter_CancelEndsTheWait(t *testing.T) {
	l, _ := NewLimiter(1, 0)
	m, _ := New(mock.Scripted(mock.Text("a"), mock.Text("b")), WithLimiter(l))
	if err := invokeBy(m); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range m.Invoke(ctx, &helikon.ModelRequest{}) {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	}
}

func TestNewLimiter_RejectsNegativeRates(t *testing.T) {
	if _, err := NewLimiter(-1, 0); err == nil {
		t.Fatal("negative requests per minute accepted")
	}
	if _, err := NewLimiter(0, -5); err == nil {
		t.Fatal("negative tokens per minute accepted")
	}
}
