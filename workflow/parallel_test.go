package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/workflow"
	"iter"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestParallel_OutputIsDeterministicWhateverOrderBranchesFinish(t *testing.T) {
	keys := []string{"realist", "optimist", "pessimist", "contrarian"}
	want := `{"contrarian":"contrarian says <no> & more","optimist":"optimist says <no> & more",` +
		`"pessimist":"pessimist says <no> & more","realist":"realist says <no> & more"}`
	finishOrders := map[string]bool{}
	for run := range 12 {
		var opts []workflow.WorkflowOption
		for _, k := range keys {
			delay := time.Duration(rand.IntN(8)) * time.Millisecond
			m := mock.New([]mock.Script{mock.Text(k + " says <no> & more")}, mock.WithDelay(delay))
			opts = append(opts, workflow.KeyedStep(k, mustAgent(t, "agent-"+k, m)))
		}
		p, err := workflow.NewParallel("lenses", opts...)
		if err != nil {
			t.Fatal(err)
		}
		rc := helikon.Ephemeral()
		res, err := helikon.Collect(p.Run(context.Background(), rc, helikon.UserText("outlook?")))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if res.FinalOutput != want || res.LastAgent != "lenses" {
			t.Fatalf("run %d: final = %q by %q\nwant %q", run, res.FinalOutput, res.LastAgent, want)
		}
		for _, k := range keys {
			if rc.State().String(k) != k+" says <no> & more" {
				t.Fatalf("run %d: state[%s] = %q", run, k, rc.State().String(k))
			}
		}
		order := ""
		for _, ev := range res.Events {
			if m, ok := ev.(helikon.MessageOutput); ok && m.Item.Agent != "lenses" {
				order += m.Item.Agent + ","
			}
		}
		finishOrders[order] = true
	}
	if len(finishOrders) < 2 {
		t.Logf("the delays gave one completion order only: %v", finishOrders)
	}
}

func TestParallel_OutputIsDeterministicUnderForcedCompletionOrders(t *testing.T) {
	keys := []string{"d", "b", "a", "c"}
	for _, perm := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}} {
		// Branch keys[perm[j]] finishes j-th: it waits for turn j, then
		// opens turn j+1.
		turns := make([]chan struct{}, len(keys)+1)
		for i := range turns {
			turns[i] = make(chan struct{})
		}
		close(turns[0])
		var opts []workflow.WorkflowOption
		for j, k := range perm {
			key := keys[k]
			opts = append(opts, workflow.KeyedStep(key, agentFunc("agent-"+key, func(ctx context.Context, yield func(helikon.Event) bool) {
				<-turns[j]
				defer close(turns[j+1])
				msg := helikon.Item{Role: helikon.RoleAssistant, Agent: key, Content: []helikon.ContentPart{helikon.TextPart{Text: "out-" + key}}}
				if yield(helikon.MessageOutput{Item: msg}) {
					yield(helikon.RunCompleted{Usage: helikon.Usage{InputTokens: 1}})
				}
			})))
		}
		p, _ := workflow.NewParallel("p", opts...)
		res, err := helikon.Collect(p.Run(context.Background(), nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"a":"out-a","b":"out-b","c":"out-c","d":"out-d"}`; res.FinalOutput != want {
			t.Errorf("order %v: final = %q, want %q", perm, res.FinalOutput, want)
		}
		var arrived []string
		for _, ev := range res.Events {
			if m, ok := ev.(helikon.MessageOutput); ok && m.Item.Agent != "p" {
				arrived = append(arrived, m.Item.Agent)
			}
		}
		var want []string
		for _, k := range perm {
			want = append(want, keys[k])
		}
		if !slicesEqual(arrived, want) {
			t.Errorf("branches finished %v, want the forced order %v", arrived, want)
		}
		if res.Usage.InputTokens != 4 {
			t.Errorf("usage = %+v", res.Usage)
		}
	}
}

func TestParallel_EventsUsageAndLifecycle(t *testing.T) {
	p, err := workflow.NewParallel("p",
		workflow.Step(answerer(t, "a", "A")), workflow.Step(answerer(t, "b", "B")), workflow.Step(answerer(t, "c", "C")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(p.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Events[0].(helikon.RunStarted); !ok {
		t.Fatalf("first event %T", res.Events[0])
	}
	n := len(res.Events)
	if m, ok := res.Events[n-2].(helikon.MessageOutput); !ok || m.Item.Text() != `{"a":"A","b":"B","c":"C"}` {
		t.Fatalf("second-to-last event = %#v, want the merged output", res.Events[n-2])
	}
	if c, ok := res.Events[n-1].(helikon.RunCompleted); !ok || c.Usage != (helikon.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Fatalf("last event = %#v, want RunCompleted with three turns of usage", res.Events[n-1])
	}
	if countEvents[helikon.RunStarted](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 1 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	if countEvents[helikon.AgentUpdated](res.Events) != 3 || countEvents[helikon.TokenDelta](res.Events) != 3 || countEvents[helikon.MessageOutput](res.Events) != 4 {
		t.Errorf("branch events missing: %v", typesOf(res.Events))
	}
}

func TestParallel_FailureIsCollectAll(t *testing.T) {
	boom := &helikon.ModelError{Kind: helikon.ModelUnavailable, Message: "down"}
	slowOK := mock.New([]mock.Script{mock.Text("slow ok")}, mock.WithDelay(5*time.Millisecond))
	p, err := workflow.NewParallel("p",
		workflow.Step(mustAgent(t, "fails-fast", mock.Scripted(mock.Fail(boom)))),
		workflow.Step(mustAgent(t, "slow", slowOK)),
		workflow.Step(mustAgent(t, "turns", mock.Scripted(mock.Text("x"), mock.Text("y")), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 1}),
			helikon.WithOutput[struct{ N int }]())))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(p.Run(context.Background(), rc, helikon.UserText("go")))
	var wf *workflow.WorkflowError
	if !errors.As(err, &wf) {
		t.Fatalf("err = %v, want a WorkflowError", err)
	}
	if len(wf.Failed) != 2 || wf.Failed[0].Key != "fails-fast" || wf.Failed[1].Key != "turns" {
		t.Fatalf("failed = %+v", wf.Failed)
	}
	var me *helikon.ModelError
	if !errors.As(err, &me) || !errors.Is(err, helikon.ErrMaxTurnsExceeded) {
		t.Errorf("err = %v: the branch failures are not reachable", err)
	}
	var ae *helikon.AgentError
	if errors.As(err, &ae); ae.Kind != helikon.KindOther || ae.Agent != "p" {
		t.Errorf("aggregate = %+v, want kind other (mixed causes) by p", ae)
	}
	// The sibling finished and kept its result.
	if rc.State().String("slow") != "slow ok" {
		t.Errorf("state = %v", rc.State().Snapshot())
	}
	if countEvents[helikon.RunFailed](res.Events) != 1 || countEvents[helikon.RunCompleted](res.Events) != 0 {
		t.Errorf("events = %v", typesOf(res.Events))
	}
	if _, last := res.Events[len(res.Events)-1].(helikon.RunFailed); !last {
		t.Error("RunFailed is not the last event")
	}
}

// barrier returns agents that each complete only once n of them have
// started: run one at a time, they wait out the context instead.
func barrier(n int) func(name string) helikon.Agent {
	var wg sync.WaitGroup
	wg.Add(n)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	return func(name string) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			wg.Done()
			select {
			case <-all:
				yield(helikon.RunCompleted{})
			case <-ctx.Done():
				yield(helikon.RunFailed{Err: ctx.Err()})
			}
		})
	}
}

func TestParallel_BranchesRunConcurrently(t *testing.T) {
	branch := barrier(3)
	p, _ := workflow.NewParallel("p", workflow.Step(branch("b0")), workflow.Step(branch("b1")), workflow.Step(branch("b2")))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := helikon.Collect(p.Run(ctx, nil, nil)); err != nil {
		t.Fatalf("branches did not all run at once: %v", err)
	}
}

func TestParallel_PanickingBranchFailsAlone(t *testing.T) {
	p, _ := workflow.NewParallel("p",
		workflow.Step(agentFunc("bad", func(context.Context, func(helikon.Event) bool) { panic("kaboom") })),
		workflow.Step(answerer(t, "good", "fine")))
	rc := helikon.Ephemeral()
	_, err := helikon.Collect(p.Run(context.Background(), rc, nil))
	var wf *workflow.WorkflowError
	if !errors.As(err, &wf) || len(wf.Failed) != 1 || wf.Failed[0].Key != "bad" {
		t.Fatalf("err = %v", err)
	}
	if rc.State().String("good") != "fine" {
		t.Error("the healthy branch did not finish")
	}
}

// funcAgent is an Agent whose run is a function, for tests that need a
// sub-agent the model cannot express.
type funcAgent struct {
	name string
	run  func(ctx context.Context, yield func(helikon.Event) bool)
}

func agentFunc(name string, run func(ctx context.Context, yield func(helikon.Event) bool)) helikon.Agent {
	return &funcAgent{name: name, run: run}
}

func (a *funcAgent) Name() string        { return a.name }
func (a *funcAgent) Description() string { return "" }
func (a *funcAgent) Run(ctx context.Context, _ *helikon.RunContext, _ []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) { a.run(ctx, yield) }
}

// On a context that can never be cancelled the branches get no cancellable
// context of their own (it would cost each child run a goroutine per model
// call); breaking out of the range must still stop every branch that
// started, at its next event, and leave no goroutine behind. Branches run
// on the consumer's goroutine first, so a break within the first one's
// events mostly comes before the others start; on a loaded machine the
// others may start on the pool meanwhile, and they tick until stopped.
func TestParallel_BreakOnAnUncancellableContextStopsEveryStartedBranchAtItsNextEvent(t *testing.T) {
	base := runtime.NumGoroutine()
	var started, stopped [3]atomic.Bool
	branch := func(i int) helikon.Agent {
		return agentFunc(fmt.Sprint("b", i), func(ctx context.Context, yield func(helikon.Event) bool) {
			started[i].Store(true)
			for {
				if !yield(helikon.AgentUpdated{Agent: "tick"}) {
					stopped[i].Store(true)
					return
				}
			}
		})
	}
	p, err := workflow.NewParallel("p", workflow.Step(branch(0)), workflow.Step(branch(1)), workflow.Step(branch(2)))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for range p.Run(context.Background(), nil, nil) {
		if seen++; seen == 5 {
			break
		}
	}
	if !started[0].Load() {
		t.Fatal("the first branch never started")
	}
	settleGoroutines(t, base)
	for i := range stopped {
		if started[i].Load() && !stopped[i].Load() {
			t.Errorf("branch %d started and was not stopped by a refused event", i)
		}
	}
}

// spreadOut returns a branch that blocks until the branches named others
// have each sent an event and then ticks, and the branches that tick
// until refused: run in that order, the first holds the consumer's
// goroutine, so the others run only once handed to the pool.
func spreadOut(others int) (first helikon.Agent, tickers []helikon.Agent, stopped []atomic.Bool) {
	var wg sync.WaitGroup
	wg.Add(others)
	stopped = make([]atomic.Bool, others+1)
	tick := func(i int, before func()) helikon.Agent {
		return agentFunc(fmt.Sprint("b", i), func(ctx context.Context, yield func(helikon.Event) bool) {
			before()
			for n := 0; ; n++ {
				if !yield(helikon.AgentUpdated{Agent: fmt.Sprint("b", i, "-tick")}) {
					stopped[i].Store(true)
					return
				}
				if n == 0 && i > 0 {
					wg.Done()
				}
			}
		})
	}
	first = tick(0, wg.Wait)
	for i := 1; i <= others; i++ {
		tickers = append(tickers, tick(i, func() {}))
	}
	return first, tickers, stopped
}

// Breaking out while the first branch runs on the consumer's goroutine and
// the others on the pool stops them all, each at its next event, and
// leaves no goroutine behind.
func TestParallel_BreakStopsTheBranchesHandedToThePool(t *testing.T) {
	base := runtime.NumGoroutine()
	first, tickers, stopped := spreadOut(2)
	p, err := workflow.NewParallel("p", workflow.Step(first), workflow.Step(tickers[0]), workflow.Step(tickers[1]))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range p.Run(context.Background(), nil, nil) {
		if u, ok := ev.(helikon.AgentUpdated); ok && u.Agent == "b0-tick" {
			break
		}
	}
	settleGoroutines(t, base)
	for i := range stopped {
		if !stopped[i].Load() {
			t.Errorf("branch %d was not stopped by a refused event", i)
		}
	}
}

// Breaking out at a pooled branch's event, which reaches the consumer only
// between the events of the branch on its goroutine (that one ticks until
// refused), stops every branch too: the refusal reaches the branch on the
// consumer's goroutine as its own event's.
func TestParallel_BreakAtAPooledBranchsEventStopsThemAll(t *testing.T) {
	base := runtime.NumGoroutine()
	first, tickers, stopped := spreadOut(2)
	p, err := workflow.NewParallel("p", workflow.Step(first), workflow.Step(tickers[0]), workflow.Step(tickers[1]))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range p.Run(context.Background(), nil, nil) {
		if u, ok := ev.(helikon.AgentUpdated); ok && u.Agent == "b1-tick" {
			break
		}
	}
	settleGoroutines(t, base)
	for i := range stopped {
		if !stopped[i].Load() {
			t.Errorf("branch %d was not stopped by a refused event", i)
		}
	}
}

// On a context that can be cancelled, breaking out cancels the branches on
// the pool, which may be waiting on it with no event to send, and the run
// returns once they have ended.
func TestParallel_BreakCancelsTheBranchesOnThePool(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waiting sync.WaitGroup
	waiting.Add(2)
	var cancelled atomic.Int32
	waiter := func(name string) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			waiting.Done()
			select {
			case <-ctx.Done():
				cancelled.Add(1)
			case <-time.After(10 * time.Second):
			}
			yield(helikon.RunFailed{Err: ctx.Err()})
		})
	}
	first := agentFunc("first", func(ctx context.Context, yield func(helikon.Event) bool) {
		waiting.Wait() // the others started: on the pool
		yield(helikon.AgentUpdated{Agent: "first-tick"})
	})
	p, err := workflow.NewParallel("p", workflow.Step(first), workflow.Step(waiter("b")), workflow.Step(waiter("c")))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for ev := range p.Run(ctx, nil, nil) {
		if u, ok := ev.(helikon.AgentUpdated); ok && u.Agent == "first-tick" {
			break
		}
	}
	if d := time.Since(t0); d > 5*time.Second || cancelled.Load() != 2 {
		t.Errorf("the run returned after %v with %d of the 2 pooled branches cancelled", d, cancelled.Load())
	}
}

// A branch that blocks on the consumer's goroutine holds the others back
// for no longer than the hand-off delay: they run on the pool meanwhile,
// stream past the queue's usual bound without waiting for the consumer
// (the queue has no bound then, as documented: a bound would make them
// wait for the blocked one, which waits for them) and finish, and their
// events, each branch's in its own order after its AgentUpdated, reach
// the consumer before the blocked branch's next one.
func TestParallel_ABlockedBranchDoesNotHoldTheOthers(t *testing.T) {
	const deltas = 100 // far past the queue's bound of 4 events a branch
	var finished sync.WaitGroup
	finished.Add(2)
	streamer := func(name string) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			defer finished.Done()
			for k := range deltas {
				if !yield(helikon.TokenDelta{Text: fmt.Sprint(name, " ", k)}) {
					return
				}
			}
			msg := helikon.Item{Role: helikon.RoleAssistant, Agent: name, Content: []helikon.ContentPart{helikon.TextPart{Text: name}}}
			if yield(helikon.MessageOutput{Item: msg}) {
				yield(helikon.RunCompleted{})
			}
		})
	}
	blocked := agentFunc("blocked", func(ctx context.Context, yield func(helikon.Event) bool) {
		done := make(chan struct{})
		go func() { finished.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			yield(helikon.RunFailed{Err: errors.New("the other branches did not finish while this one blocked")})
			return
		}
		msg := helikon.Item{Role: helikon.RoleAssistant, Agent: "blocked", Content: []helikon.ContentPart{helikon.TextPart{Text: "late"}}}
		if yield(helikon.MessageOutput{Item: msg}) {
			yield(helikon.RunCompleted{})
		}
	})
	p, err := workflow.NewParallel("p", workflow.Step(blocked), workflow.Step(streamer("x")), workflow.Step(streamer("y")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(p.Run(context.Background(), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"blocked":"late","x":"x","y":"y"}`; res.FinalOutput != want {
		t.Fatalf("final = %q, want %q", res.FinalOutput, want)
	}
	next := map[string]int{} // each streamer's next delta
	announced := map[string]bool{}
	blockedOut := false
	for _, ev := range res.Events {
		switch ev := ev.(type) {
		case helikon.AgentUpdated:
			announced[ev.Agent] = true
		case helikon.TokenDelta:
			name, k, _ := strings.Cut(ev.Text, " ")
			if !announced[name] || blockedOut || k != fmt.Sprint(next[name]) {
				t.Fatalf("delta %q out of order (announced %v, after the blocked branch's output %v, want delta %d)",
					ev.Text, announced[name], blockedOut, next[name])
			}
			next[name]++
		case helikon.MessageOutput:
			if ev.Item.Agent == "blocked" {
				blockedOut = true
			}
		}
	}
	if next["x"] != deltas || next["y"] != deltas {
		t.Errorf("deltas x %d, y %d, want %d each", next["x"], next["y"], deltas)
	}
}

// Cancelling the run stops the branch on the consumer's goroutine and the
// ones on the pool alike, and the run fails as cancelled.
func TestParallel_CancellingStopsEveryBranchWhereverItRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started sync.WaitGroup
	started.Add(3)
	waiter := func(name string) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			started.Done()
			select {
			case <-ctx.Done():
				yield(helikon.RunFailed{Err: ctx.Err()})
			case <-time.After(10 * time.Second):
				yield(helikon.RunCompleted{})
			}
		})
	}
	p, err := workflow.NewParallel("p", workflow.Step(waiter("a")), workflow.Step(waiter("b")), workflow.Step(waiter("c")))
	if err != nil {
		t.Fatal(err)
	}
	go func() { started.Wait(); cancel() }()
	t0 := time.Now()
	_, err = helikon.Collect(p.Run(ctx, nil, nil))
	var wf *workflow.WorkflowError
	if !errors.As(err, &wf) || len(wf.Failed) != 3 || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want all three branches failed as cancelled", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the run took %v: a branch waited out its timer", d)
	}
}

// The pool's goroutines outlive a run only while idle for a while: after a
// burst of concurrent runs they all end, and a run after that starts the
// pool afresh and leaves none behind either.
func TestParallel_PoolGoroutinesEndOnceIdleAndComeBackForTheNextRun(t *testing.T) {
	base := runtime.NumGoroutine()
	run := func() error {
		p, err := workflow.NewParallel("p", workflow.Step(answerer(t, "a", "A")), workflow.Step(answerer(t, "b", "B")), workflow.Step(answerer(t, "c", "C")))
		if err != nil {
			return err
		}
		res, err := helikon.Collect(p.Run(context.Background(), nil, nil))
		if err == nil && res.FinalOutput != `{"a":"A","b":"B","c":"C"}` {
			err = fmt.Errorf("final output %q", res.FinalOutput)
		}
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = run() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	settleGoroutines(t, base)
	if err := run(); err != nil {
		t.Fatal(err)
	}
	settleGoroutines(t, base)
}

// Runs that start as the pool's idle goroutines reach their end (spaced
// about the pool's 50 ms idle limit apart) lose no child to a goroutine the
// reaper ends, the pool never holds more goroutines than children ran at
// once, and every one of them ends once idle.
func TestParallel_RunsStartingAsIdleGoroutinesEndLoseNoChild(t *testing.T) {
	base := runtime.NumGoroutine()
	const runners, runs, branches = 6, 10, 3
	var wg sync.WaitGroup
	errs := make([]error, runners)
	for i := range runners {
		wg.Go(func() {
			for j := range runs {
				// 35 to 64 ms: around the idle limit, so some runs hand
				// their children over just as the reaper ends goroutines.
				time.Sleep(time.Duration(35+(i*7+j*3)%30) * time.Millisecond)
				p, err := workflow.NewParallel("p", workflow.Step(answerer(t, "a", "A")), workflow.Step(answerer(t, "b", "B")), workflow.Step(answerer(t, "c", "C")))
				if err != nil {
					errs[i] = err
					return
				}
				res, err := helikon.Collect(p.Run(context.Background(), nil, nil))
				if err == nil && res.FinalOutput != `{"a":"A","b":"B","c":"C"}` {
					err = fmt.Errorf("runner %d, run %d: final output %q", i, j, res.FinalOutput)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	// A child handed to a goroutine the reaper ended never runs, and its
	// run never ends: a liveness bound far above the runs' time.
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Fatal("runs still under way after 30 s: a child was lost")
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine() - base; n > runners*branches {
		t.Errorf("%d goroutines left after the runs, more than the %d children that ever ran at once", n, runners*branches)
	}
	settleGoroutines(t, base)
}

// Pooled branches that stream faster than the consumer takes their events
// do not hold back the branch on the consumer's goroutine: at that
// branch's event the consumer forwards the pooled events queued by then,
// not every one the pooled branches send while it forwards. Here each
// pooled event the consumer takes makes a pooled branch send another
// before the consumer goes on, so a forward that waited for the queue to
// empty never reached the first branch's event (it hung the package's
// tests on a loaded machine, where two goroutines streaming outran one
// consumer).
func TestParallel_PooledBranchesOutpacingTheConsumerDoNotHoldBackTheBranchOnItsGoroutine(t *testing.T) {
	base := runtime.NumGoroutine()
	var wg sync.WaitGroup
	wg.Add(2)
	permit, sent := make(chan struct{}, 1), make(chan struct{}, 1)
	first := agentFunc("b0", func(ctx context.Context, yield func(helikon.Event) bool) {
		wg.Wait() // on the consumer's goroutine until both others are pooled and have sent
		for yield(helikon.AgentUpdated{Agent: "b0-tick"}) {
		}
	})
	ticker := func(name string) helikon.Agent {
		return agentFunc(name, func(ctx context.Context, yield func(helikon.Event) bool) {
			for n := 0; ; n++ {
				if n > 0 {
					<-permit // closed once the consumer breaks out
				}
				if !yield(helikon.AgentUpdated{Agent: name + "-tick"}) {
					return
				}
				if n == 0 {
					wg.Done()
					continue
				}
				select {
				case sent <- struct{}{}:
				default:
				}
			}
		})
	}
	p, err := workflow.NewParallel("p", workflow.Step(first), workflow.Step(ticker("b1")), workflow.Step(ticker("b2")))
	if err != nil {
		t.Fatal(err)
	}
	const most = 100
	pooled := 0
	for ev := range p.Run(context.Background(), nil, nil) {
		u, ok := ev.(helikon.AgentUpdated)
		if !ok {
			continue
		}
		if u.Agent == "b0-tick" {
			close(permit) // the pooled branches go on to their refused events
			break
		}
		if u.Agent == "b1-tick" || u.Agent == "b2-tick" {
			// Each pooled event taken lets one more be sent, and the
			// consumer goes on only once it is queued.
			if pooled++; pooled < most {
				permit <- struct{}{}
				<-sent
			}
		}
	}
	settleGoroutines(t, base)
	if pooled >= most {
		t.Errorf("the consumer took %d pooled events before the first event of the branch on its goroutine, want fewer than %d", pooled, most)
	}
}
