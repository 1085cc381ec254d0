package temporal

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestRunner_RunTimeoutEndsTheRunWithATypedError runs a tool that outlasts
// the run's timeout, set on the runner (WithRunTimeout) or by the
// RunContext's RunConfig.Timeout: the workflow times out, and the run ends
// as an in-process run past its timeout does, with a Cancelled failure
// that matches context.DeadlineExceeded, the Temporal timeout as its
// cause, streamed or not.
func TestRunner_RunTimeoutEndsTheRunWithATypedError(t *testing.T) {
	c := devClient(t)
	// stalling is an agent whose tool waits until the test ends.
	stalling := func(t *testing.T) *helikon.LLMAgent {
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		stall := helikon.MustTool("stall", "Waits.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
			select {
			case <-release:
			case <-tc.Done():
			}
			return "late", nil
		})
		return mustAgent(t, "slow", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stall", Args: `{}`}), mock.Text("never")), helikon.WithTools(stall))
	}
	for _, tc := range []struct {
		name string
		opts []RunnerOption
		rc   *helikon.RunContext
		live bool
	}{
		{"WithRunTimeout", []RunnerOption{WithRunTimeout(time.Second)}, nil, false},
		{"WithRunTimeout, streamed", []RunnerOption{WithRunTimeout(time.Second)}, nil, true},
		{"RunConfig.Timeout over a longer WithRunTimeout", []RunnerOption{WithRunTimeout(time.Hour)}, helikon.NewRunContext(helikon.WithRunConfig(helikon.RunConfig{Timeout: time.Second})), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ag := stalling(t)
			queue := startWorker(t, c, WithAgents(ag))
			r, err := NewRunner(c, queue, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.live {
				_, err = helikon.Collect(r.RunStreamed(context.Background(), ag, tc.rc, helikon.UserText("go")))
			} else {
				_, err = r.Run(context.Background(), ag, tc.rc, helikon.UserText("go"))
			}
			var te *temporal.TimeoutError
			if !errors.Is(err, helikon.ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &te) {
				t.Fatalf("err = %v, want a Cancelled failure matching context.DeadlineExceeded with the workflow's timeout as cause", err)
			}
		})
	}
}
