package runner_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/governance"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

type pathArgs struct {
	Path string `json:"path" jsonschema:"a file path"`
}

// askRemove puts every call of "remove" to a human.
type askRemove struct{}

func (askRemove) Check(context.Context, *helikon.RunContext, helikon.PermissionRequest) governance.PermissionDecision {
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "delete?"}
}

// cleaner returns an agent whose "remove" tool counts its runs in n.
func cleaner(t testing.TB, m helikon.Model, n *atomic.Int32) *helikon.LLMAgent {
	t.Helper()
	remove := helikon.MustTool("remove", "Delete a file.", func(_ *helikon.ToolContext, in pathArgs) (string, error) {
		n.Add(1)
		return "removed " + in.Path, nil
	}, helikon.WithEffect(helikon.Write))
	a, err := helikon.NewAgent("cleaner", m, helikon.WithTools(remove))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func pausingContext(sess helikon.Session, opts ...helikon.ContextOption) *helikon.RunContext {
	return helikon.NewRunContext(append([]helikon.ContextOption{helikon.WithSession(sess), governance.WithPermissionPolicy(askRemove{})}, opts...)...)
}

// pauseInSession runs the cleaner under a runner until it pauses and
// returns the pause as the session lists it.
func pauseInSession(t *testing.T, sess helikon.Session, n *atomic.Int32) runner.Pause {
	t.Helper()
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "remove", Args: `{"path":"a.tmp"}`}))
	_, err := runner.New().Run(context.Background(), cleaner(t, m, n), pausingContext(sess), helikon.UserText("clean up"))
	if !errors.Is(err, helikon.ErrPaused) {
		t.Fatalf("run: %v", err)
	}
	pending, err := runner.Pending(context.Background(), sess)
	if err != nil || len(pending) != 1 || len(pending[0].Pending) != 1 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	return pending[0]
}

func TestResumePaused_AnotherRunnerResumesByRunIDAndTheSessionStaysValid(t *testing.T) {
	sess := helikon.NewMemorySession()
	var n atomic.Int32
	p := pauseInSession(t, sess, &n)
	if n.Load() != 0 || p.Agent != "cleaner" || p.State == nil || p.Pending[0].Tool != "remove" {
		t.Fatalf("pause = %+v, ran %d", p, n.Load())
	}
	// A new runner and a new agent value, as in another process.
	res, err := runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("done")), &n),
		pausingContext(sess), p.RunID, []helikon.Decision{helikon.Approve(p.Pending[0].ID)})
	if err != nil || res.FinalOutput != "done" || n.Load() != 1 {
		t.Fatalf("resume: %v %q ran %d", err, res.FinalOutput, n.Load())
	}
	if pending, err := runner.Pending(context.Background(), sess); err != nil || len(pending) != 0 {
		t.Fatalf("pending after resume = %+v, %v", pending, err)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool assistant" {
		t.Fatalf("session = %s", got)
	}
}

func TestResumePaused_TwiceIsRejectedAndNothingRunsTwice(t *testing.T) {
	sess := helikon.NewMemorySession()
	var n atomic.Int32
	p := pauseInSession(t, sess, &n)
	ds := []helikon.Decision{helikon.Approve(p.Pending[0].ID)}
	if _, err := runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("done")), &n), pausingContext(sess), p.RunID, ds); err != nil {
		t.Fatal(err)
	}
	_, err := runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("again")), &n), pausingContext(sess), p.RunID, ds)
	if !errors.Is(err, runner.ErrAlreadyResumed) || n.Load() != 1 {
		t.Fatalf("second resume: %v, ran %d", err, n.Load())
	}
}

func TestResumePaused_ConcurrentResumesRunTheCallOnce(t *testing.T) {
	sess := helikon.NewMemorySession()
	var n atomic.Int32
	p := pauseInSession(t, sess, &n)
	ds := []helikon.Decision{helikon.Approve(p.Pending[0].ID)}
	const racers = 4
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, errs[i] = runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("done")), &n), pausingContext(sess), p.RunID, ds)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, runner.ErrAlreadyResumed):
			t.Errorf("racer failed with %v", err)
		}
	}
	if won != 1 || n.Load() != 1 {
		t.Fatalf("%d resumes won, the call ran %d times", won, n.Load())
	}
}

func TestResumePaused_BadRequestsFailBeforeAnythingRuns(t *testing.T) {
	var n atomic.Int32
	sess := helikon.NewMemorySession()
	p := pauseInSession(t, sess, &n)
	agent := cleaner(t, mock.Scripted(mock.Text("done")), &n)
	tests := []struct {
		name  string
		sess  helikon.Session
		runID string
		ds    []helikon.Decision
		want  error
	}{
		{"unknown run id", sess, "run_nope", nil, runner.ErrUnknownRun},
		{"a deleted session", helikon.NewMemorySession(), p.RunID, nil, runner.ErrUnknownRun},
		{"unknown approval id", sess, p.RunID, []helikon.Decision{helikon.Approve("apr_nope")}, helikon.ErrUnknownApproval},
		{"invalid decision", sess, p.RunID, []helikon.Decision{{ID: p.Pending[0].ID, Kind: "maybe"}}, helikon.ErrInvalidDecision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runner.New().ResumePaused(context.Background(), agent, pausingContext(tt.sess), tt.runID, tt.ds)
			if !errors.Is(err, tt.want) || n.Load() != 0 {
				t.Fatalf("err = %v, want %v; ran %d", err, tt.want, n.Load())
			}
		})
	}
	// A refused request did not use the pause up.
	res, err := runner.New().ResumePaused(context.Background(), agent, pausingContext(sess), p.RunID, []helikon.Decision{helikon.Reject(p.Pending[0].ID, "no")})
	if err != nil || res.FinalOutput != "done" || n.Load() != 0 {
		t.Fatalf("valid resume after refused ones: %v %q ran %d", err, res.FinalOutput, n.Load())
	}
}

func TestResumePaused_ANewRunSupersedesThePause(t *testing.T) {
	var n atomic.Int32
	sess := helikon.NewMemorySession()
	p := pauseInSession(t, sess, &n)
	// The user moves on: the new run abandons the paused call.
	res, err := runner.New().Run(context.Background(), cleaner(t, mock.Scripted(mock.Text("ok, leaving it")), &n), pausingContext(sess), helikon.UserText("never mind"))
	if err != nil || res.FinalOutput != "ok, leaving it" {
		t.Fatalf("new run: %v", err)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool user assistant" {
		t.Fatalf("session = %s", got)
	}
	if pending, _ := runner.Pending(context.Background(), sess); len(pending) != 0 {
		t.Fatalf("pending = %+v", pending)
	}
	_, err = runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("done")), &n), pausingContext(sess), p.RunID,
		[]helikon.Decision{helikon.Approve(p.Pending[0].ID)})
	if !errors.Is(err, runner.ErrPauseSuperseded) || n.Load() != 0 {
		t.Fatalf("resume after a new run: %v, ran %d", err, n.Load())
	}
}

func TestResumePaused_SessionScopeAlwaysIsRecordedAndApplied(t *testing.T) {
	var n atomic.Int32
	sess := helikon.NewMemorySession()
	p := pauseInSession(t, sess, &n)
	_, err := runner.New().ResumePaused(context.Background(), cleaner(t, mock.Scripted(mock.Text("done")), &n), pausingContext(sess), p.RunID,
		[]helikon.Decision{helikon.Always(p.Pending[0].ID, "", helikon.ScopeSession)})
	if err != nil || n.Load() != 1 {
		t.Fatalf("resume: %v ran %d", err, n.Load())
	}
	grants, err := runner.SessionGrants(context.Background(), sess)
	if err != nil || len(grants) != 1 || grants[0].String() != "remove" {
		t.Fatalf("grants = %v, %v", grants, err)
	}
	// A later run on the session with the grants applied does not ask.
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c9", Name: "remove", Args: `{"path":"b.tmp"}`}), mock.Text("done again"))
	res, err := runner.New().Run(context.Background(), cleaner(t, m, &n), pausingContext(sess, governance.WithAllowRules(grants...)), helikon.UserText("more"))
	if err != nil || res.FinalOutput != "done again" || n.Load() != 2 {
		t.Fatalf("later run: %v ran %d", err, n.Load())
	}
}
