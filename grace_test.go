package helikon_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// stubborn is a tool that ignores its context: it returns only when
// release is closed.
func stubborn(started chan<- struct{}, release <-chan struct{}) helikon.Tool {
	return helikon.MustTool("stubborn", "Sleeps, ignoring cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		started <- struct{}{}
		<-release
		return "finally", nil
	})
}

// stubbornModel streams one delta, then blocks, ignoring its context, until
// release is closed.
type stubbornModel struct {
	started chan<- struct{}
	release <-chan struct{}
}

func (m stubbornModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }

func (m stubbornModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		if !yield(helikon.TokenDelta{Text: "thinking"}, nil) {
			return
		}
		m.started <- struct{}{}
		<-m.release
		yield(helikon.Finish{Reason: helikon.FinishStop}, nil)
	}
}

// endsWithin drains stream on its own goroutine and returns the events, or
// fails the test when the stream has not ended after limit — a liveness
// bound far above the grace period, not a timing measurement.
func endsWithin(t *testing.T, limit time.Duration, stream iter.Seq[helikon.Event]) (*helikon.RunResult, error) {
	t.Helper()
	type outcome struct {
		res *helikon.RunResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := helikon.Collect(stream)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(limit):
		t.Fatalf("the run did not end within %v of its cancellation", limit)
		return nil, nil
	}
}

// settleStragglers releases what the test held and waits for the registry
// to drain, so tests do not see each other's stragglers.
func settleStragglers(t *testing.T, release chan struct{}) {
	t.Helper()
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := helikon.WaitStragglers(ctx); err != nil {
		t.Fatalf("stragglers did not drain after release: %d left", helikon.Stragglers())
	}
	if n := helikon.Stragglers(); n != 0 {
		t.Fatalf("%d stragglers after WaitStragglers", n)
	}
}

func TestCancel_RunEndsWithinTheGracePeriodWhatTheStragglerDoes(t *testing.T) {
	grace := helikon.WithRunConfig(helikon.RunConfig{CancelGrace: 20 * time.Millisecond})
	cases := []struct {
		name string
		// start begins a run that blocks in something ignoring its context
		// and returns its stream plus the way the test stops it.
		start func(started chan struct{}, release chan struct{}) (stream iter.Seq[helikon.Event], stop func())
		// consumerStops marks cases where the consumer leaves the range, so
		// no terminal event is expected.
		consumerStops bool
	}{
		{"tool, context cancelled", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release)), grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"tool, run timeout", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release)),
				helikon.WithRunConfig(helikon.RunConfig{Timeout: 30 * time.Millisecond, CancelGrace: 20 * time.Millisecond}))
			return a.Run(context.Background(), nil, helikon.UserText("go")), func() {}
		}, false},
		{"tool beside an honouring call", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			polite := helikon.MustTool("polite", "Waits for cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				<-tc.Done()
				return "", tc.Err()
			})
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}, mock.Call{ID: "c2", Name: "polite", Args: `{}`}))
			a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release), polite), grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"tool beside a tool that promises to honour cancellation", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}, mock.Call{ID: "c2", Name: "polite", Args: `{}`}))
			a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release), promisingPolite()), grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"hook of a promising tool's call", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			hook := helikon.HookFunc(func(ctx context.Context, rc *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
				if ev.Kind == helikon.PreToolUse {
					started <- struct{}{}
					<-release
				}
				return helikon.HookDecision{}
			})
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "polite", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(promisingPolite()), helikon.WithHooks(hook), grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"authorizer of a promising tool's call", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			auth := stubbornAuthorizer{started, release}
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "polite", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(promisingPolite()), grace)
			return a.Run(ctx, helikon.NewRunContext(helikon.WithAuthorizer(auth)), helikon.UserText("go")), cancel
		}, false},
		{"redactor of a promising tool's output", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			quick := helikon.MustTool("quick", "Answers at once.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				return "secret", nil
			}, helikon.WithHonoursCancellation())
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "quick", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(quick), grace)
			rc := helikon.NewRunContext(helikon.WithRedactor(stubbornRedactor{started, release}))
			return a.Run(ctx, rc, helikon.UserText("go")), cancel
		}, false},
		{"input guardrail beside the first model call", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			check := helikon.GuardrailFunc(func(context.Context, *helikon.RunContext, helikon.GuardrailInput) (*helikon.Tripwire, error) {
				started <- struct{}{}
				<-release
				return nil, nil
			})
			a := mustAgent(t, "a", waitingModel{}, helikon.WithInputGuardrails(check), grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"model, context cancelled", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			a := mustAgent(t, "a", stubbornModel{started, release}, grace)
			return a.Run(ctx, nil, helikon.UserText("go")), cancel
		}, false},
		{"model, consumer breaks out", func(started, release chan struct{}) (iter.Seq[helikon.Event], func()) {
			ctx, cancel := context.WithCancel(context.Background())
			a := mustAgent(t, "a", stubbornModel{started, release}, grace)
			stream := func(yield func(helikon.Event) bool) {
				defer cancel()
				for ev := range a.Run(ctx, nil, helikon.UserText("go")) {
					if !yield(ev) {
						return
					}
					if _, ok := ev.(helikon.TokenDelta); ok {
						// The consumer leaves the range while the model,
						// having sent its first delta, blocks.
						return
					}
				}
			}
			return stream, func() {}
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			started, release := make(chan struct{}, 4), make(chan struct{})
			stream, stop := c.start(started, release)
			type outcome struct {
				res *helikon.RunResult
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := helikon.Collect(stream)
				done <- outcome{res, err}
			}()
			<-started
			stop()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the run did not end after its cancellation: it waited for the straggler")
			}
			if !c.consumerStops && !errors.Is(o.err, helikon.ErrCancelled) {
				t.Errorf("err = %v; want ErrCancelled", o.err)
			}
			if n := helikon.Stragglers(); n != 1 {
				t.Errorf("Stragglers() = %d while the straggler still runs; want 1", n)
			}
			settleStragglers(t, release)
		})
	}
}

// promisingPolite is a tool that promises to honour cancellation and
// keeps the promise: it waits for its context to end.
func promisingPolite() helikon.Tool {
	return helikon.MustTool("polite", "Waits for cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		<-tc.Done()
		return "", tc.Err()
	}, helikon.WithHonoursCancellation())
}

// stubbornAuthorizer allows every call once release is closed, ignoring
// its context.
type stubbornAuthorizer struct {
	started chan<- struct{}
	release <-chan struct{}
}

func (a stubbornAuthorizer) Authorize(ctx context.Context, rc *helikon.RunContext, req helikon.PermissionRequest, ask helikon.Asker) helikon.Verdict {
	a.started <- struct{}{}
	<-a.release
	return helikon.Verdict{Allowed: true}
}

// stubbornRedactor redacts nothing once release is closed, ignoring the
// run's context: a Redactor takes none, and may call out (a DLP service).
type stubbornRedactor struct {
	started chan<- struct{}
	release <-chan struct{}
}

func (r stubbornRedactor) RedactOutput(out helikon.ToolOutput) helikon.ToolOutput {
	r.started <- struct{}{}
	<-r.release
	return out
}

func (r stubbornRedactor) RedactText(s string) string { return s }

// TestCancel_APromiseBrokenHoldsTheRunAndIsNamed pins the price of
// [helikon.WithHonoursCancellation]: its calls run on the run's goroutine,
// so a tool that makes the promise and ignores its context holds a
// cancelled run until it returns, whatever the grace period, and the run
// names it in a warning.
func TestCancel_APromiseBrokenHoldsTheRunAndIsNamed(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil)))
	defer slog.SetDefault(prev)

	started, release := make(chan struct{}, 1), make(chan struct{})
	liar := helikon.MustTool("liar", "Promises, then ignores cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		started <- struct{}{}
		<-release
		return "late", nil
	}, helikon.WithHonoursCancellation())
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "liar", Args: `{}`}), mock.Text("unreached"))
	a := mustAgent(t, "a", m, helikon.WithTools(liar), helikon.WithRunConfig(helikon.RunConfig{CancelGrace: 5 * time.Millisecond}))
	heldUntilReleased(t, a, started, release)
	mu.Lock()
	defer mu.Unlock()
	if out := logged.String(); !strings.Contains(out, "promises to honour cancellation") || !strings.Contains(out, "tool=liar") {
		t.Errorf("log = %q; want a warning naming the tool", out)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestCancel_ASlowCallThatEndedBeforeTheCancellationIsNotNamed: a
// promising tool that ran past the grace period but returned before the
// run was cancelled kept its promise; the warning names only a call that
// returned after the cancellation.
func TestCancel_ASlowCallThatEndedBeforeTheCancellationIsNotNamed(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil)))
	defer slog.SetDefault(prev)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := helikon.MustTool("slow", "Computes for a while.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		time.Sleep(30 * time.Millisecond)
		return "done", nil
	}, helikon.WithHonoursCancellation())
	stop := helikon.MustTool("stop", "Cancels the run.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		cancel()
		return "stopped", nil
	}, helikon.WithHonoursCancellation())
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "slow", Args: `{}`}, mock.Call{ID: "c2", Name: "stop", Args: `{}`}), mock.Text("unreached"))
	a := mustAgent(t, "a", m, helikon.WithTools(slow, stop), helikon.WithRunConfig(helikon.RunConfig{CancelGrace: 5 * time.Millisecond, ParallelToolCalls: 1}))
	if _, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go"))); !errors.Is(err, helikon.ErrCancelled) {
		t.Fatalf("err = %v; want ErrCancelled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if out := logged.String(); strings.Contains(out, "tool=slow") {
		t.Errorf("log = %q; the slow call returned before the cancellation, keeping its promise", out)
	}
}

func TestCancel_NegativeGraceWaitsForTheStraggler(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}), mock.Text("unreached"))
	a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release)),
		helikon.WithRunConfig(helikon.RunConfig{CancelGrace: -1}))
	heldUntilReleased(t, a, started, release)
}

// heldUntilReleased starts a run of a, cancels it once its tool started,
// and checks that the run waits for the tool until release is closed, then
// ends as cancelled with no straggler left.
func heldUntilReleased(t *testing.T, a *helikon.LLMAgent, started <-chan struct{}, release chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go")))
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		t.Fatalf("the run ended (%v) while its tool still ran", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; !errors.Is(err, helikon.ErrCancelled) {
		t.Errorf("err = %v; want ErrCancelled", err)
	}
	if n := helikon.Stragglers(); n != 0 {
		t.Errorf("Stragglers() = %d; a run that waited for its tool leaves none", n)
	}
}

func TestCancel_HonouringToolLeavesNoStraggler(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	entered := make(chan struct{})
	polite := helikon.MustTool("polite", "Waits for cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		close(entered)
		<-tc.Done()
		return "", tc.Err()
	})
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "polite", Args: `{}`}), mock.Text("unreached"))
	a := mustAgent(t, "a", m, helikon.WithTools(polite))
	go func() { <-entered; cancel() }()
	_, err := endsWithin(t, 10*time.Second, a.Run(ctx, nil, helikon.UserText("go")))
	if !errors.Is(err, helikon.ErrCancelled) {
		t.Errorf("err = %v; want ErrCancelled", err)
	}
	if n := helikon.Stragglers(); n != 0 {
		t.Errorf("Stragglers() = %d; want 0", n)
	}
}

func TestCancel_CancellableRunStillAnswers(t *testing.T) {
	promising := helikon.MustTool("add", "Adds two integers.", func(tc *helikon.ToolContext, in sumArgs) (int, error) { return in.A + in.B, nil },
		helikon.WithHonoursCancellation())
	for _, tool := range []helikon.Tool{sumTool(), promising} {
		t.Run(fmt.Sprintf("honours=%v", tool.(helikon.CancelAwareTool).HonoursCancellation()), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}, mock.Call{ID: "c2", Name: "add", Args: `{"a":1,"b":2}`}),
				mock.Deltas("sum ", "is ", "42"))
			a := mustAgent(t, "calc", m, helikon.WithTools(tool))
			res, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("q")))
			if err != nil || res.FinalOutput != "sum is 42" {
				t.Fatalf("res = %q, %v", res.FinalOutput, err)
			}
			if got := typesOf(res.Events); !slicesEqual(got, []string{"run_started", "turn_started", "tool_call_delta", "tool_call_delta",
				"model_responded", "tool_call_item", "tool_call_item", "tool_output_item", "tool_output_item", "turn_started",
				"token_delta", "token_delta", "token_delta", "model_responded", "message_output", "run_completed"}) {
				t.Errorf("events = %v", got)
			}
		})
	}
}

// TestCancel_ACallNotStartedWhenTheRunIsCancelledDoesNotRun pins that the
// calls of a round that have not started when the run is cancelled do not
// start: with one call at a time, the first cancels the run, and the
// second must not run. Before, each call went to a worker of its own and
// the second raced the cancellation for the round's one slot.
func TestCancel_ACallNotStartedWhenTheRunIsCancelledDoesNotRun(t *testing.T) {
	for _, promise := range []bool{false, true} {
		// The tools' promise to honour cancellation takes the round from
		// a worker to the run's goroutine.
		var opts []helikon.ToolOption
		if promise {
			opts = append(opts, helikon.WithHonoursCancellation())
		}
		t.Run(fmt.Sprintf("honours=%v", promise), func(t *testing.T) {
			for i := range 20 {
				ctx, cancel := context.WithCancel(context.Background())
				var ran atomic.Bool
				stop := helikon.MustTool("stop", "Cancels the run.", func(*helikon.ToolContext, struct{}) (string, error) {
					cancel()
					return "stopped", nil
				}, opts...)
				record := helikon.MustTool("record", "Records that it ran.", func(*helikon.ToolContext, struct{}) (string, error) {
					ran.Store(true)
					return "ran", nil
				}, opts...)
				m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stop", Args: `{}`}, mock.Call{ID: "c2", Name: "record", Args: `{}`}), mock.Text("unreached"))
				a := mustAgent(t, "a", m, helikon.WithTools(stop, record), helikon.WithRunConfig(helikon.RunConfig{ParallelToolCalls: 1}))
				_, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go")))
				cancel()
				if !errors.Is(err, helikon.ErrCancelled) {
					t.Fatalf("run %d: err = %v, want ErrCancelled", i, err)
				}
				if ran.Load() {
					t.Fatalf("run %d: the call after the cancellation ran", i)
				}
			}
		})
	}
}
