package temporal

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

var queueSeq atomic.Int64

// startWorker serves a fresh task queue on the dev server for the test and
// returns its name.
func startWorker(t testing.TB, c client.Client, opts ...WorkerOption) string {
	t.Helper()
	queue := fmt.Sprintf("q%d-%s", queueSeq.Add(1), strings.ReplaceAll(t.Name(), "/", "_"))
	startWorkerOn(t, c, queue, opts...)
	return queue
}

// startWorkerOn starts a worker on queue, stopped when the test ends.
func startWorkerOn(t testing.TB, c client.Client, queue string, opts ...WorkerOption) *Worker {
	t.Helper()
	w, err := NewWorker(c, queue, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func TestRunner_MatchesTheInProcessRunnerOnTheDevServer(t *testing.T) {
	c := devClient(t)
	for _, live := range []bool{false, true} {
		for _, sc := range scenarios() {
			t.Run(fmt.Sprintf("%s, streamed %v", sc.name, live), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				ref, posture := sc.build(t)
				refSession := helikon.NewMemorySession()
				want, wantErr := runner.New().Run(ctx, ref, helikon.NewRunContext(append(posture.options(true), helikon.WithSession(refSession))...), helikon.UserText("go"))

				ag, posture := sc.build(t)
				queue := startWorker(t, c, WithAgents(ag), WithPosture(posture))
				r, err := NewRunner(c, queue)
				if err != nil {
					t.Fatal(err)
				}
				session := helikon.NewMemorySession()
				rc := helikon.NewRunContext(helikon.WithSession(session))
				var got *helikon.RunResult
				if live {
					got, err = helikon.Collect(r.RunStreamed(ctx, ag, rc, helikon.UserText("go")))
				} else {
					got, err = r.Run(ctx, ag, rc, helikon.UserText("go"))
				}
				if (err == nil) != (wantErr == nil) {
					t.Fatalf("error %v, in-process %v", err, wantErr)
				}
				g, w := encodeAll(t, got.Events), encodeAll(t, settled(want.Events))
				if strings.Join(g, "\n") != strings.Join(w, "\n") {
					t.Fatalf("events differ\n got:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
				}
				if got.FinalOutput != want.FinalOutput || got.Usage != want.Usage {
					t.Fatalf("result %q %+v, want %q %+v", got.FinalOutput, got.Usage, want.FinalOutput, want.Usage)
				}
				gs, _ := session.Snapshot(ctx)
				ws, _ := refSession.Snapshot(ctx)
				if a, b := encodeItems(t, gs), encodeItems(t, ws); a != b {
					t.Fatalf("session differs\n got: %s\nwant: %s", a, b)
				}
			})
		}
	}
}

func encodeItems(t *testing.T, items []helikon.Item) string {
	t.Helper()
	var b strings.Builder
	for _, it := range items {
		it.Agent = "" // the session projection does not keep every agent name
		fmt.Fprintf(&b, "%s|", encodeAll(t, []helikon.Event{helikon.MessageOutput{Item: it}})[0])
	}
	return b.String()
}

func TestRunner_ContinuesTheSessionsConversation(t *testing.T) {
	c := devClient(t)
	m := mock.Scripted(mock.Text("first answer"), mock.Text("second answer"))
	ag := mustAgent(t, "a", m)
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag)))
	if err != nil {
		t.Fatal(err)
	}
	session := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(session))
	for _, q := range []string{"one", "two"} {
		if _, err := r.Run(context.Background(), ag, rc, helikon.UserText(q)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 3 || reqs[1].Messages[0].Text() != "one" || reqs[1].Messages[1].Text() != "first answer" {
		t.Fatalf("second turn saw %d messages, want the first exchange then the new input", len(reqs[1].Messages))
	}
}

func TestRunner_CallersPermissionsDoNotCrossToTheWorker(t *testing.T) {
	c := devClient(t)
	ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Text("done")), helikon.WithTools(addTool))
	queue := startWorker(t, c, WithAgents(ag), WithPosture(WorkerPosture{Deny: []governance.DenyRule{governance.DenyTool("add")}}))
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	// The caller allows everything; the worker's posture still decides.
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass), governance.WithAllowRules(governance.AllowTool("add")))
	res, err := r.Run(context.Background(), ag, rc, helikon.UserText("go"))
	if err != nil {
		t.Fatal(err)
	}
	denied := false
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.PermissionDenied); ok && d.Tool == "add" {
			denied = true
		}
	}
	if !denied {
		t.Fatal("the worker's deny rule did not hold against the caller's bypass")
	}
}

func TestRunner_RedactsToolOutputBeforeItReachesHistory(t *testing.T) {
	c := devClient(t)
	ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "leak", Args: `{}`}), mock.Text("done")), helikon.WithTools(leakTool))
	queue := startWorker(t, c, WithAgents(ag), WithPosture(WorkerPosture{ExtraSecrets: []string{"tenant-secret-value-42"}}))
	r, err := NewRunner(c, queue, WithWorkflowID(func(string) string { return "redact-" + t.Name() }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), ag, nil, helikon.UserText("go")); err != nil {
		t.Fatal(err)
	}
	raw := historyText(t, c, "redact-"+t.Name())
	for _, secret := range []string{"sk-live-0123456789abcdefghijklmnop", "tenant-secret-value-42"} {
		if strings.Contains(raw, secret) {
			t.Fatalf("the secret %s reached the workflow history", secret)
		}
	}
	if !strings.Contains(raw, "the key is") {
		t.Fatal("the tool's output is not in the history at all")
	}
}

// historyText returns every payload of a workflow's history as text.
func historyText(t testing.TB, c client.Client, id string) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range history(t, c, id) {
		b.WriteString(ev.String())
	}
	return b.String()
}

func TestRunner_WorkflowIDReusePolicy(t *testing.T) {
	c := devClient(t)
	m := mock.Scripted(mock.Text("once"), mock.Text("twice"))
	ag := mustAgent(t, "a", m)
	id := "reuse-" + t.Name()
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag)), WithWorkflowID(func(string) string { return id }))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := r.Run(context.Background(), ag, nil, helikon.UserText("go")); err != nil || res.FinalOutput != "once" {
		t.Fatalf("first run: %v %v", res, err)
	}
	// A completed run's id is not run again: starting it returns that
	// run's outcome.
	if res, err := r.Run(context.Background(), ag, nil, helikon.UserText("go")); err != nil || res.FinalOutput != "once" {
		t.Fatalf("second start of a completed id: %v %v, want the first run's outcome", res, err)
	}
	if m.Remaining() != 1 {
		t.Fatalf("the model was called %d times, want once", 2-m.Remaining())
	}
}

// askModel calls transfer until the conversation holds a tool result, then
// answers: stateless, so many runs can share it.
type askModel struct{}

func (askModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Tools: true}
}

func (askModel) Invoke(_ context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	ev := helikon.ModelEvent(helikon.ToolCallDelta{CallID: "c1", Name: "transfer", ArgsDelta: `{"a":100,"b":0}`})
	if req.Messages[len(req.Messages)-1].Role == helikon.RoleTool {
		ev = helikon.TokenDelta{Text: "done"}
	}
	return func(yield func(helikon.ModelEvent, error) bool) { yield(ev, nil) }
}

func TestRunner_PauseSurvivesAWorkerRestartAndHoldsNoSlot(t *testing.T) {
	c := devClient(t)
	var executions atomic.Int32
	transfer := helikon.MustTool("transfer", "Moves money.", func(_ *helikon.ToolContext, in addArgs) (string, error) {
		executions.Add(1)
		return fmt.Sprintf("moved %d", in.A), nil
	})
	bank := mustAgent(t, "bank", askModel{}, helikon.WithTools(transfer))
	s1 := mustAgent(t, "s1", turnsModel{1}, helikon.WithTools(addTool))
	queue := fmt.Sprintf("q%d-pause", queueSeq.Add(1))
	// One activity and two workflow tasks at a time: paused runs must not
	// hold them.
	newWorker := func() *Worker {
		w, err := NewWorker(c, queue, WithAgents(bank, s1), WithPosture(WorkerPosture{Policy: askPolicy("transfer")}),
			WithWorkerOptions(worker.Options{MaxConcurrentActivityExecutionSize: 1, MaxConcurrentWorkflowTaskExecutionSize: 2}))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	first := newWorker()
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	session := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(session))
	var states []*helikon.RunState
	for i := range 4 {
		rcI := rc
		if i > 0 {
			rcI = nil
		}
		_, err = helikon.Collect(r.RunStreamed(ctx, bank, rcI, helikon.UserText("go")))
		var paused *helikon.PausedError
		if !errors.As(err, &paused) || len(paused.State.Pending) != 1 || paused.State.Pending[0].Tool != "transfer" {
			t.Fatalf("run %d: %v, want a pause on transfer", i, err)
		}
		states = append(states, paused.State)
	}
	// Four runs wait; another still gets the worker's only activity slot.
	if res, err := r.Run(ctx, s1, nil, helikon.UserText("go")); err != nil || res.FinalOutput != "sum is 42" {
		t.Fatalf("a run beside the paused ones: %v %v", res, err)
	}

	// The worker that paused goes away; a new one takes the decisions.
	first.Stop()
	second := newWorker()
	defer second.Stop()

	if _, err := helikon.Collect(r.Resume(ctx, bank, rc, states[0], []helikon.Decision{helikon.Approve("apr_unknown")})); err == nil || !strings.Contains(err.Error(), "unknown approval id") {
		t.Fatalf("resume with an unknown id: %v, want it refused", err)
	}
	// The core's Resume cannot resume a durable state: the workflow holds
	// the round.
	if _, err := helikon.Collect(helikon.Resume(ctx, bank, rc, states[0], []helikon.Decision{helikon.Approve(states[0].Pending[0].ID)})); err == nil {
		t.Fatal("helikon.Resume accepted a durable run's state")
	}
	// Half the runs resume from their state, half by run id alone, as the
	// in-process runner's ResumePaused does.
	for i, st := range states {
		rcI := rc
		if i > 0 {
			rcI = nil
		}
		decisions := []helikon.Decision{helikon.Approve(st.Pending[0].ID)}
		var res *helikon.RunResult
		if i%2 == 0 {
			res, err = helikon.Collect(r.Resume(ctx, bank, rcI, st, decisions))
		} else {
			res, err = r.ResumePaused(ctx, bank, rcI, st.RunID, decisions)
		}
		if err != nil || res.FinalOutput != "done" {
			t.Fatalf("resumed run %d: %v %v", i, res, err)
		}
	}
	if executions.Load() != 4 {
		t.Fatalf("transfer ran %d times, want once per run", executions.Load())
	}
	// A decision for a pause that is over changes nothing.
	if _, err := helikon.Collect(r.Resume(ctx, bank, nil, states[0], []helikon.Decision{helikon.Approve(states[0].Pending[0].ID)})); err == nil {
		t.Fatal("a second decision for the same pause was accepted")
	}
	if _, err := r.ResumePaused(ctx, bank, nil, states[1].RunID, []helikon.Decision{helikon.Approve(states[1].Pending[0].ID)}); !errors.Is(err, runner.ErrAlreadyResumed) {
		t.Fatalf("second resume by run id: %v, want runner.ErrAlreadyResumed", err)
	}
	if _, err := r.ResumePaused(ctx, bank, nil, "helikon-run-nobody", nil); !errors.Is(err, runner.ErrUnknownRun) {
		t.Fatalf("resume of an unknown run: %v, want runner.ErrUnknownRun", err)
	}
	items, _ := session.Snapshot(ctx)
	if n := len(items); n != 4 || items[n-1].Text() != "done" {
		t.Fatalf("session holds %d items, want input, call, result, answer", n)
	}
}

func TestRunner_ToolAttemptsBoundARetriedCall(t *testing.T) {
	c := devClient(t)
	for _, tc := range []struct {
		name     string
		opts     []WorkerOption
		wantRuns int32
		wantText string
	}{
		{"retried by default", nil, 2, `"finished"`},
		{"one attempt", []WorkerOption{WithToolAttempts("slow", 1)}, 1, "tool call failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int32
			// The first execution outlives the step timeout, as a call on
			// a worker that died would; a retry finishes at once.
			slow := helikon.MustTool("slow", "Works slowly once.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
				if runs.Add(1) == 1 {
					select {
					case <-time.After(3 * time.Second):
					case <-tc.Done():
					}
				}
				return "finished", nil
			})
			ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "slow", Args: `{}`}), mock.Text("done")), helikon.WithTools(slow))
			opts := append([]WorkerOption{WithAgents(ag), WithStepTimeouts(0, 500*time.Millisecond, 0), WithRetryInterval(50 * time.Millisecond)}, tc.opts...)
			r, err := NewRunner(c, startWorker(t, c, opts...))
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), ag, nil, helikon.UserText("go"))
			if err != nil || res.FinalOutput != "done" {
				t.Fatalf("run: %v %v", res, err)
			}
			var text string
			for _, ev := range res.Events {
				if o, ok := ev.(helikon.ToolOutputItem); ok {
					text = o.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text
				}
			}
			if runs.Load() != tc.wantRuns || !strings.Contains(text, tc.wantText) {
				t.Fatalf("the tool ran %d times and reported %q; want %d and %q", runs.Load(), text, tc.wantRuns, tc.wantText)
			}
		})
	}
}

func TestRunner_CancelStopsARunningRun(t *testing.T) {
	c := devClient(t)
	started := make(chan struct{}, 1)
	block := helikon.MustTool("block", "Waits until cancelled.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		started <- struct{}{}
		<-tc.Done()
		return "", tc.Err()
	})
	ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "block", Args: `{}`}), mock.Text("never")), helikon.WithTools(block))
	id := fmt.Sprintf("cancel-%d", queueSeq.Add(1))
	// Heartbeats carry the cancellation to the running tool.
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithHeartbeat(time.Second)), WithWorkflowID(func(string) string { return id }))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := helikon.Collect(r.RunStreamed(context.Background(), ag, nil, helikon.UserText("go")))
		done <- err
	}()
	awaitToolStart(t, started, done)
	if err := r.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindCancelled {
		t.Fatalf("run ended with %v, want a cancelled failure", err)
	}
}

// awaitToolStart waits for a run's tool to start, failing the test with the
// run's error if the run ends first (a clean-clone CI run once waited on
// the tool for the whole test timeout, with the run's error unseen).
func awaitToolStart(t *testing.T, started <-chan struct{}, done <-chan error) {
	t.Helper()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("run ended before its tool started: %v", err)
	}
}

func TestRunner_CallerGoneLeavesTheRunGoing(t *testing.T) {
	c := devClient(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	wait := helikon.MustTool("wait", "Waits for the test.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		started <- struct{}{}
		<-release
		return "ok", nil
	})
	ag := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "wait", Args: `{}`}), mock.Text("finished anyway")), helikon.WithTools(wait))
	id := fmt.Sprintf("gone-%d", queueSeq.Add(1))
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag)), WithWorkflowID(func(string) string { return id }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := helikon.Collect(r.RunStreamed(ctx, ag, nil, helikon.UserText("go")))
		done <- err
	}()
	awaitToolStart(t, started, done)
	cancel()
	err = <-done
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindCancelled || !strings.Contains(ae.Message, id) {
		t.Fatalf("caller's stream ended with %v, want a cancelled failure naming the workflow", err)
	}
	close(release)
	// The same id attaches to the run, which finished without the caller.
	res, err := r.Run(context.Background(), ag, nil, helikon.UserText("go"))
	if err != nil || res.FinalOutput != "finished anyway" {
		t.Fatalf("attached: %v %v", res, err)
	}
}

// brokenSession is a MemorySession whose appends fail.
type brokenSession struct{ *helikon.MemorySession }

var errSessionDown = errors.New("session backend down")

func (brokenSession) Append(context.Context, ...helikon.SessionEvent) error { return errSessionDown }

func TestRunner_FailedSessionAppendIsAPersistErrorAsInProcess(t *testing.T) {
	c := devClient(t)
	build := func() *helikon.LLMAgent {
		// Stateless, so one agent serves both runs on the worker.
		return mustAgent(t, "calc", turnsModel{1}, helikon.WithTools(addTool))
	}
	ctx := context.Background()
	want, wantErr := runner.New().Run(ctx, build(), helikon.NewRunContext(helikon.WithSession(brokenSession{helikon.NewMemorySession()})), helikon.UserText("go"))
	ag := build()
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag)))
	if err != nil {
		t.Fatal(err)
	}
	for _, live := range []bool{false, true} {
		rc := helikon.NewRunContext(helikon.WithSession(brokenSession{helikon.NewMemorySession()}))
		var got *helikon.RunResult
		if live {
			got, err = helikon.Collect(r.RunStreamed(ctx, ag, rc, helikon.UserText("go")))
		} else {
			got, err = r.Run(ctx, ag, rc, helikon.UserText("go"))
		}
		var pe, wpe *runner.PersistError
		if !errors.As(err, &pe) || !errors.As(wantErr, &wpe) || !errors.Is(err, runner.ErrPersist) || !errors.Is(err, errSessionDown) {
			t.Fatalf("streamed %v: error %v, want a *runner.PersistError as in process (%v)", live, err, wantErr)
		}
		if pe.RunErr != nil || got.FinalOutput != want.FinalOutput {
			t.Fatalf("streamed %v: run error %v, output %q; the run itself completed with %q", live, pe.RunErr, got.FinalOutput, want.FinalOutput)
		}
		if _, ok := pe.Terminal.(helikon.RunCompleted); !ok {
			t.Fatalf("streamed %v: terminal %T, want the RunCompleted it replaced", live, pe.Terminal)
		}
		kinds := func(evs []helikon.SessionEvent) string {
			var b strings.Builder
			for _, ev := range evs {
				fmt.Fprintf(&b, "%s ", ev.Kind)
			}
			return b.String()
		}
		if a, b := kinds(pe.Unsaved), kinds(wpe.Unsaved); a != b {
			t.Fatalf("streamed %v: unsaved %s, in process %s", live, a, b)
		}
	}
}

func TestRunner_RunReturnsAPauseAsInProcess(t *testing.T) {
	c := devClient(t)
	var executions atomic.Int32
	ag, posture := pauseScenario(t, &executions)
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Run, not streamed, waits for the result only; a run that pauses
	// still ends the call with its pause, as the in-process runner's does.
	_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
	var paused *helikon.PausedError
	if !errors.As(err, &paused) || len(paused.State.Pending) != 1 {
		t.Fatalf("Run of a pausing run: %v, want a *helikon.PausedError", err)
	}
	res, err := r.ResumePaused(ctx, ag, nil, paused.State.RunID, []helikon.Decision{helikon.Approve(paused.State.Pending[0].ID)})
	if err != nil || res.FinalOutput != "done" || executions.Load() != 1 {
		t.Fatalf("resumed: %v %v, transfer ran %d times", res, err, executions.Load())
	}
}
