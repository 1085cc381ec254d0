package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
)

// queryCounter counts the queries a client sends, by query type.
type queryCounter struct {
	interceptor.ClientInterceptorBase
	mu sync.Mutex
	n  map[string]int
}

func (q *queryCounter) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return &countingOutbound{ClientOutboundInterceptorBase: interceptor.ClientOutboundInterceptorBase{Next: next}, q: q}
}

func (q *queryCounter) count(name string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n[name]
}

type countingOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	q *queryCounter
}

func (o *countingOutbound) QueryWorkflow(ctx context.Context, in *interceptor.ClientQueryWorkflowInput) (converter.EncodedValue, error) {
	o.q.mu.Lock()
	if o.q.n == nil {
		o.q.n = map[string]int{}
	}
	o.q.n[in.QueryType]++
	o.q.mu.Unlock()
	return o.Next.QueryWorkflow(ctx, in)
}

func TestRunner_RunLearnsOfAPauseWithoutPolling(t *testing.T) {
	devClient(t)
	for _, tc := range []struct {
		name  string
		build func(t *testing.T, n *atomic.Int32) (*helikon.LLMAgent, WorkerPosture)
	}{
		{"the run's own call", pauseScenario},
		{"a sub-run's call", func(t *testing.T, n *atomic.Int32) (*helikon.LLMAgent, WorkerPosture) {
			return subPauseRun(t, 1, false, n)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var queries queryCounter
			c, err := client.Dial(client.Options{HostPort: devAddr, Logger: quietLogger(), Interceptors: []interceptor.ClientInterceptor{&queries}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var executions atomic.Int32
			ag, posture := tc.build(t, &executions)
			r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
			var paused *helikon.PausedError
			if !errors.As(err, &paused) {
				t.Fatalf("Run: %v, want a pause", err)
			}
			// The wait update told of the pause: the pause query was never
			// asked, and the events were read once (a query is retried
			// at most twice on a transient failure).
			if n := queries.count(PauseQuery); n != 0 {
				t.Fatalf("Run asked the pause query %d times, want none", n)
			}
			if n := queries.count(EventsQuery); n < 1 || n > 3 {
				t.Fatalf("Run asked the events query %d times, want once", n)
			}
			res, err := r.ResumePaused(ctx, ag, nil, paused.State.RunID, decideAll(paused.State.Pending, false))
			if err != nil || res.FinalOutput != "done" || executions.Load() != 1 {
				t.Fatalf("resumed: %v %v, transfer ran %d times", res, err, executions.Load())
			}
		})
	}
}

func TestWorkflow_WaitUpdateCompletesOnAPauseAndOnTheEnd(t *testing.T) {
	var executions atomic.Int32
	ag, posture := pauseScenario(t, &executions)
	env := newTestEnv()
	reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
	if err != nil {
		t.Fatal(err)
	}
	register(env, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
	var got []pauseInfo
	var ranBefore int32 = -1
	wait := func(id string, after string, then func(pauseInfo)) {
		env.UpdateWorkflow(WaitUpdate, id, &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("wait %s rejected: %v", id, err) },
			OnAccept: func() {},
			OnComplete: func(v any, err error) {
				if err != nil {
					t.Errorf("wait %s: %v", id, err)
					return
				}
				p := v.(pauseInfo)
				got = append(got, p)
				if then != nil {
					then(p)
				}
			},
		}, waitIn{After: after})
	}
	env.RegisterDelayedCallback(func() {
		// Sent before the run pauses, the wait completes with the pause;
		// sent with that pause as known, it completes with the run's end.
		wait("first", "", func(p pauseInfo) {
			ranBefore = executions.Load()
			wait("second", p.PauseID, nil)
			env.UpdateWorkflow(DecideUpdate, "decide", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Error(err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, decideIn{PauseID: p.PauseID, Decisions: decideAll(p.Pending, false)})
		})
	}, 0)
	env.ExecuteWorkflow(WorkflowName, runInput{Agent: "bank", Input: helikon.UserText("go"), ApprovalTimeout: 24 * time.Hour})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].PauseID == "" || len(got[0].Pending) != 1 || got[1].PauseID != "" || got[1].Pauses != 1 {
		t.Fatalf("waits returned %+v, want the pause, then the end", got)
	}
	if ranBefore != 0 || executions.Load() != 1 {
		t.Fatalf("transfer ran %d times before the pause was reported, %d in all", ranBefore, executions.Load())
	}
}

func TestRunner_EagerStartRunsAndLearnsOfAPause(t *testing.T) {
	c := devClient(t)
	var executions atomic.Int32
	ag, posture := pauseScenario(t, &executions)
	// The worker and the runner share the client, so the server can hand
	// the first workflow task to this process's worker.
	id := fmt.Sprintf("eager-%d", queueSeq.Add(1))
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)), WithEagerStart(), WithWorkflowID(func(string) string { return id }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
	var paused *helikon.PausedError
	if !errors.As(err, &paused) {
		t.Fatalf("Run: %v, want a pause", err)
	}
	res, err := r.ResumePaused(ctx, ag, nil, paused.State.RunID, decideAll(paused.State.Pending, false))
	if err != nil || res.FinalOutput != "done" || executions.Load() != 1 {
		t.Fatalf("resumed: %v %v, transfer ran %d times", res, err, executions.Load())
	}
	it := c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	first, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !first.GetWorkflowExecutionStartedEventAttributes().GetEagerExecutionAccepted() {
		t.Fatal("the server did not start the run eagerly")
	}
}

func TestRunner_ResumePausedLearnsOfTheNextPauseWithoutPolling(t *testing.T) {
	devClient(t)
	var queries queryCounter
	c, err := client.Dial(client.Options{HostPort: devAddr, Logger: quietLogger(), Interceptors: []interceptor.ClientInterceptor{&queries}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var executions atomic.Int32
	ag, posture := subPauseRun(t, 1, true, &executions)
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
	var paused *helikon.PausedError
	if !errors.As(err, &paused) || len(paused.State.Pending) != 2 {
		t.Fatalf("Run: %v, want a pause on two calls", err)
	}
	// Deciding the run's own call only leaves the sub-run's waiting: the
	// run pauses again, which ResumePaused reports.
	var own, sub helikon.PendingApproval
	for _, p := range paused.State.Pending {
		if p.Agent == "bank" {
			own = p
		} else {
			sub = p
		}
	}
	_, err = r.ResumePaused(ctx, ag, nil, paused.State.RunID, []helikon.Decision{helikon.Approve(own.ID)})
	var again *helikon.PausedError
	if !errors.As(err, &again) || len(again.State.Pending) != 1 || again.State.Pending[0].ID != sub.ID || again.State.PauseID == paused.State.PauseID {
		t.Fatalf("ResumePaused: %v, want a new pause on the sub-run's call", err)
	}
	// ResumePaused asked the pause query once, to find the pause it
	// decides; the next pause came by the wait update.
	if n := queries.count(PauseQuery); n != 1 {
		t.Fatalf("the pause query was asked %d times, want once", n)
	}
	res, err := r.ResumePaused(ctx, ag, nil, paused.State.RunID, []helikon.Decision{helikon.Approve(sub.ID)})
	if err != nil || res.FinalOutput != "done" || executions.Load() != 2 {
		t.Fatalf("resumed: %v %v, transfer ran %d times, want 2", res, err, executions.Load())
	}
}
