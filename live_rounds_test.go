package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// liveRoundsScript is rounds turns of tool calls (one, two or three calls a
// round; every third call sleeps past the driver's wait without sleeping)
// and a final answer, with the call ids each round's results must carry.
func liveRoundsScript(run, rounds int) ([]mock.Script, []string) {
	var scripts []mock.Script
	var ids []string
	for r := range rounds {
		var calls []mock.Call
		for k := range 1 + r%3 {
			id := fmt.Sprintf("r%d_%d_%d", run, r, k)
			slow := (r+k)%3 == 0
			calls = append(calls, mock.Call{ID: id, Name: "echo", Args: fmt.Sprintf(`{"id":%q,"slow":%v}`, id, slow)})
			ids = append(ids, id)
		}
		scripts = append(scripts, mock.ToolCalls(calls...))
	}
	return append(scripts, mock.Text("done")), ids
}

// TestCancellableRun_EveryRoundSettlesItsOwnCalls pins the live round a
// cancellable run reuses from round to round: each round ends on its own
// calls' end, never on a token left by an earlier round, so every call's
// result is its own output. It runs many such runs at once (drivers
// competing for the wait without sleeping) at GOMAXPROCS 1, 2 and 4 (one
// processor: no driver waits without sleeping).
func TestCancellableRun_EveryRoundSettlesItsOwnCalls(t *testing.T) {
	type in struct {
		ID   string `json:"id"`
		Slow bool   `json:"slow"`
	}
	// echo ignores its context, so its calls run on workers (the live
	// round) rather than on the driver.
	echo := helikon.MustTool("echo", "Echoes its id.", func(tc *helikon.ToolContext, a in) (string, error) {
		if a.Slow {
			time.Sleep(100 * time.Microsecond)
		}
		return "out " + a.ID, nil
	})
	const runs, rounds = 8, 40
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var wg sync.WaitGroup
			errs := make([]error, runs)
			for run := range runs {
				scripts, ids := liveRoundsScript(run, rounds)
				a := mustAgent(t, "a", mock.Scripted(scripts...), helikon.WithTools(echo),
					helikon.WithRunConfig(helikon.RunConfig{MaxTurns: rounds + 2}))
				wg.Go(func() {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					res, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go")))
					if err != nil {
						errs[run] = err
						return
					}
					errs[run] = checkOwnResults(res, ids)
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkOwnResults reports a call whose result is missing, repeated or not
// its own output.
func checkOwnResults(res *helikon.RunResult, ids []string) error {
	got := map[string]string{}
	for _, ev := range res.Events {
		o, ok := ev.(helikon.ToolOutputItem)
		if !ok {
			continue
		}
		for _, p := range o.Item.Content {
			if r, ok := p.(helikon.ToolResultPart); ok {
				b, _ := json.Marshal(r.Content)
				if _, dup := got[r.CallID]; dup {
					return fmt.Errorf("call %s has two results", r.CallID)
				}
				got[r.CallID] = string(b)
			}
		}
	}
	if len(got) != len(ids) {
		return fmt.Errorf("%d results for %d calls", len(got), len(ids))
	}
	for _, id := range ids {
		if !strings.Contains(got[id], "out "+id) {
			return fmt.Errorf("call %s: result %s, want its own output", id, got[id])
		}
	}
	return nil
}

// TestCancellableRun_CancelledByItsOwnQuickCallEnds pins a cancellation that
// arrives while the driver waits without sleeping for a young round: the
// call that cancels the run returns at once, and the run ends cancelled
// instead of starting another round.
func TestCancellableRun_CancelledByItsOwnQuickCallEnds(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for round := range 3 {
				ctx, cancel := context.WithCancel(context.Background())
				n := 0
				stop := helikon.MustTool("step", "Cancels the run at its round.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
					if n++; n > round {
						cancel()
					}
					return "ok", nil
				})
				var scripts []mock.Script
				for r := range round + 1 {
					scripts = append(scripts, mock.ToolCalls(mock.Call{ID: fmt.Sprintf("c%d", r), Name: "step", Args: `{}`}))
				}
				m := mock.Scripted(append(scripts, mock.Text("unreached"))...)
				a := mustAgent(t, "a", m, helikon.WithTools(stop))
				_, err := endsWithin(t, 10*time.Second, a.Run(ctx, nil, helikon.UserText("go")))
				cancel()
				if !errors.Is(err, helikon.ErrCancelled) {
					t.Errorf("cancelled at round %d: err %v, want ErrCancelled", round, err)
				}
				if m.Remaining() != 1 {
					t.Errorf("cancelled at round %d: %d scripts left, want only the answer", round, m.Remaining())
				}
			}
		})
	}
}

// TestCancellableRun_CancelDuringTheWaitStillBoundsAStuckCall pins
// CancelGrace for a call that cancels its run at once, while the driver
// still waits without sleeping for the young round, and then ignores the
// cancellation: the run ends cancelled, the call left as a straggler.
func TestCancellableRun_CancelDuringTheWaitStillBoundsAStuckCall(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			release := make(chan struct{})
			stuck := helikon.MustTool("stuck", "Cancels its run, then ignores it.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				cancel()
				<-release
				return "finally", nil
			})
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stuck", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(stuck), helikon.WithRunConfig(helikon.RunConfig{CancelGrace: 20 * time.Millisecond}))
			_, err := endsWithin(t, 10*time.Second, a.Run(ctx, nil, helikon.UserText("go")))
			if !errors.Is(err, helikon.ErrCancelled) {
				t.Errorf("err %v, want ErrCancelled", err)
			}
			settleStragglers(t, release)
		})
	}
}

// TestCancellableRun_ARoundGivenUpOnIsNotPassedToLaterRuns pins which live
// rounds an ended run passes on to later runs: one whose workers all left,
// never one it gave up on, where a straggler still runs (a later run on
// it would find it given up on, its calls never run and the run never
// ended). The later runs start while the straggler still runs.
func TestCancellableRun_ARoundGivenUpOnIsNotPassedToLaterRuns(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stubborn", Args: `{}`}), mock.Text("unreached"))
	a := mustAgent(t, "a", m, helikon.WithTools(stubborn(started, release)), helikon.WithRunConfig(helikon.RunConfig{CancelGrace: time.Millisecond}))
	go func() { <-started; cancel() }()
	if _, err := endsWithin(t, 10*time.Second, a.Run(ctx, nil, helikon.UserText("go"))); !errors.Is(err, helikon.ErrCancelled) {
		t.Fatalf("err %v, want ErrCancelled", err)
	}
	later, cancelLater := context.WithCancel(context.Background())
	defer cancelLater()
	for i := range 20 {
		b := mustAgent(t, "b", mock.New(s1Scripts()), helikon.WithTools(addTool))
		res, err := endsWithin(t, 10*time.Second, b.Run(later, nil, helikon.UserText("q")))
		if err != nil || res.FinalOutput != "sum is 42" {
			t.Fatalf("run %d after the straggler's: %v, %q", i, err, res.FinalOutput)
		}
	}
	settleStragglers(t, release)
}
