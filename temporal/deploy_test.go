package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
)

// deskModel answers from its request alone, so the workers of two
// releases answer alike: with no tool result yet it calls approve (which
// pauses the run for a human); then, asked to "handoff" and offered the
// transfer to closer, it hands off; otherwise it reports what it was
// sent: the tools it was offered and its instructions.
type deskModel struct{}

func (deskModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Tools: true}
}

func (deskModel) Invoke(_ context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	var system, input string
	results := 0
	for _, it := range req.Messages {
		switch it.Role {
		case helikon.RoleSystem:
			system = it.Text()
		case helikon.RoleUser:
			input = it.Text()
		case helikon.RoleTool:
			results++
		}
	}
	var tools []string
	for _, d := range req.Tools {
		tools = append(tools, d.Name)
	}
	slices.Sort(tools)
	var ev helikon.ModelEvent
	switch {
	case results == 0:
		ev = helikon.ToolCallDelta{CallID: "c1", Name: "approve", ArgsDelta: `{}`}
	case input == "handoff" && slices.Contains(tools, "transfer_to_closer"):
		ev = helikon.ToolCallDelta{CallID: "c2", Name: "transfer_to_closer", ArgsDelta: `{}`}
	default:
		ev = helikon.TokenDelta{Text: fmt.Sprintf("tools=%s system=%s", strings.Join(tools, ","), system)}
	}
	return func(yield func(helikon.ModelEvent, error) bool) { yield(ev, nil) }
}

var (
	approveTool = helikon.MustTool("approve", "Needs a human.", func(*helikon.ToolContext, struct{}) (string, error) { return "approved", nil })
	extraTool   = helikon.MustTool("extra", "New in the second release.", func(*helikon.ToolContext, struct{}) (string, error) { return "extra", nil })
)

// deskRelease is one release of the desk agent: its instructions, whether
// it hands off to closer, its tools, and whether the worker registers
// closer on its own.
type deskRelease struct {
	instructions string
	handoff      bool
	extra        bool
	closer       bool
	opts         []WorkerOption
}

// worker starts a worker of the release on queue.
func (d deskRelease) worker(t *testing.T, c client.Client, queue string) *Worker {
	t.Helper()
	closer := mustAgent(t, "closer", answerModel("closed"))
	opts := []helikon.AgentOption{helikon.WithInstructions(d.instructions), helikon.WithTools(approveTool)}
	if d.extra {
		opts = append(opts, helikon.WithTools(extraTool))
	}
	if d.handoff {
		opts = append(opts, helikon.WithHandoffs(helikon.HandoffTo(closer)))
	}
	agents := []*helikon.LLMAgent{mustAgent(t, "desk", deskModel{}, opts...)}
	if d.closer {
		agents = append(agents, closer)
	}
	return startWorkerOn(t, c, queue, append([]WorkerOption{WithAgents(agents...), WithPosture(WorkerPosture{Policy: askPolicy("approve")}),
		WithWorkerOptions(worker.Options{StickyScheduleToStartTimeout: time.Second})}, d.opts...)...)
}

// answerModel always answers its text.
type answerModel string

func (answerModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }

func (m answerModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) { yield(helikon.TokenDelta{Text: string(m)}, nil) }
}

// pauseOn starts a run of desk over input and returns its run id once it
// paused on approve.
func pauseOn(t *testing.T, r *Runner, input string) (string, []helikon.PendingApproval) {
	t.Helper()
	desk := mustAgent(t, "desk", deskModel{})
	_, err := r.Run(context.Background(), desk, nil, helikon.UserText(input))
	var paused *helikon.PausedError
	if !errors.As(err, &paused) {
		t.Fatalf("run: %v, want a pause on approve", err)
	}
	return paused.State.RunID, paused.State.Pending
}

// resume approves a paused run and returns its outcome.
func resume(t *testing.T, r *Runner, runID string, pending []helikon.PendingApproval) (*helikon.RunResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.ResumePaused(ctx, mustAgent(t, "desk", deskModel{}), nil, runID, decideAll(pending, false))
}

// TestDeploy_RunStartedBeforeAnAgentChangeCompletesAsDocumented pauses a
// run on a worker, replaces the worker by one of a changed release, and
// resumes the run there: the run keeps the shape it recorded at its start
// (its tools, handoffs, step mode) and the instructions it rendered, as
// docs/durable.md ("Deploying agent changes") says; a handoff to an agent
// the new worker lacks fails the run with an error naming it, which the
// client receives. A run started on the new worker gets the change.
func TestDeploy_RunStartedBeforeAnAgentChangeCompletesAsDocumented(t *testing.T) {
	t.Parallel()
	c := devClient(t)
	v1 := deskRelease{instructions: "desk v1", handoff: true}
	for _, tc := range []struct {
		name  string
		next  deskRelease
		input string
		// want is the resumed run's output, or wantErr its error; fresh
		// is the output of a run started on the new worker.
		want, wantErr, fresh string
		// wantModelSteps counts the model turns the history schedules
		// as activities (-1: do not count).
		wantModelSteps int
		first          []WorkerOption
	}{
		{name: "lost a handoff", next: deskRelease{instructions: "desk v1"}, input: "handoff",
			wantErr: `temporal: agent is not registered on the worker: "closer"`, wantModelSteps: -1},
		{name: "lost a handoff whose target stays registered", next: deskRelease{instructions: "desk v1", closer: true}, input: "handoff",
			want: "closed", wantModelSteps: -1},
		{name: "gained a tool", next: deskRelease{instructions: "desk v1", handoff: true, extra: true}, input: "report",
			want:  "tools=approve,transfer_to_closer system=desk v1",
			fresh: "tools=approve,extra,transfer_to_closer system=desk v1", wantModelSteps: -1},
		{name: "changed instructions", next: deskRelease{instructions: "desk v2", handoff: true}, input: "report",
			want:  "tools=approve,transfer_to_closer system=desk v1",
			fresh: "tools=approve,transfer_to_closer system=desk v2", wantModelSteps: -1},
		{name: "switched to local activities", next: deskRelease{instructions: "desk v1", handoff: true, opts: []WorkerOption{WithLocalActivities()}}, input: "report",
			want: "tools=approve,transfer_to_closer system=desk v1", wantModelSteps: 2},
		{name: "switched from local model calls to activities", first: []WorkerOption{WithLocalModelCalls()}, next: deskRelease{instructions: "desk v1", handoff: true}, input: "report",
			want: "tools=approve,transfer_to_closer system=desk v1", wantModelSteps: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			queue := fmt.Sprintf("q%d-deploy", queueSeq.Add(1))
			first := v1
			first.opts = tc.first
			w1 := first.worker(t, c, queue)
			r, err := NewRunner(c, queue)
			if err != nil {
				t.Fatal(err)
			}
			runID, pending := pauseOn(t, r, tc.input)
			w1.Stop()
			tc.next.worker(t, c, queue)
			res, err := resume(t, r, runID, pending)
			if tc.wantErr != "" {
				var ae *helikon.AgentError
				if !errors.As(err, &ae) || ae.Kind != helikon.KindConfig || !strings.Contains(ae.Message, tc.wantErr) {
					t.Fatalf("resumed run: %v, %v; want a config error %q", res, err, tc.wantErr)
				}
			} else if err != nil || res.FinalOutput != tc.want {
				t.Fatalf("resumed run: %v %v, want %q", res, err, tc.want)
			}
			if tc.wantModelSteps >= 0 {
				if n := scheduled(t, c, runID, activityCallModel); n != tc.wantModelSteps {
					t.Errorf("the history schedules %d model turns as activities, want %d (the mode the run started in)", n, tc.wantModelSteps)
				}
			}
			if tc.fresh != "" {
				id, pending := pauseOn(t, r, tc.input)
				if res, err := resume(t, r, id, pending); err != nil || res.FinalOutput != tc.fresh {
					t.Fatalf("a run started on the new worker: %v %v, want %q", res, err, tc.fresh)
				}
			}
		})
	}
}

// scheduled counts the activities of type name the history of run id
// scheduled.
func scheduled(t *testing.T, c client.Client, id, name string) int {
	t.Helper()
	n := 0
	for _, ev := range history(t, c, id) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == name {
			n++
		}
	}
	return n
}

// TestDeploy_PinnedRunFinishesOnTheVersionThatStartedIt runs two worker
// deployment versions side by side: a run started on the first, pinned
// to it, finishes there with the handoff the second version removed,
// after the second became current; a run started after that gets the
// second version's agent.
func TestDeploy_PinnedRunFinishesOnTheVersionThatStartedIt(t *testing.T) {
	t.Parallel()
	c := devClient(t)
	queue := fmt.Sprintf("q%d-versions", queueSeq.Add(1))
	deployment := "desk-" + queue
	v1 := deskRelease{instructions: "desk v1", handoff: true, opts: []WorkerOption{WithDeploymentVersion(deployment, "v1")}}
	v2 := deskRelease{instructions: "desk v2", opts: []WorkerOption{WithDeploymentVersion(deployment, "v2")}}
	v1.worker(t, c, queue)
	setCurrent(t, c, deployment, "v1")
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	runID, pending := pauseOn(t, r, "handoff")
	v2.worker(t, c, queue)
	setCurrent(t, c, deployment, "v2")
	if res, err := resume(t, r, runID, pending); err != nil || res.FinalOutput != "closed" || res.LastAgent != "closer" {
		t.Fatalf("the pinned run: %v %v, want closer's answer", res, err)
	}
	id, pending := pauseOn(t, r, "handoff")
	if res, err := resume(t, r, id, pending); err != nil || res.FinalOutput != "tools=approve system=desk v2" {
		t.Fatalf("a run started after the switch: %v %v, want the second version's agent", res, err)
	}
}

// setCurrent makes buildID the deployment's current version, once the
// server has seen its workers poll.
func setCurrent(t *testing.T, c client.Client, deployment, buildID string) {
	t.Helper()
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, err := h.SetCurrentVersion(context.Background(), client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildID})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("set the current version of %s to %s: %v", deployment, buildID, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDeploy_RunRecordedInAnUnknownStepModeFailsNamingBothModes runs a
// workflow whose recorded shape names a step mode this release does not
// know, as a later release's worker would record it (an interceptor
// rewrites the side effect's value): the run fails at once with an error
// naming the recorded mode and the worker's, which Runner.Run returns,
// instead of a replay that cannot match while the client waits.
func TestDeploy_RunRecordedInAnUnknownStepModeFailsNamingBothModes(t *testing.T) {
	t.Parallel()
	c := devClient(t)
	ag := mustAgent(t, "a", answerModel("never"))
	queue := startWorker(t, c, WithAgents(ag), WithLocalActivities(),
		WithWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&modeRewriter{mode: "local turbo"}}}))
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Run(ctx, ag, nil, helikon.UserText("go"))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindConfig || !strings.Contains(ae.Message, `"local turbo"`) || !strings.Contains(ae.Message, `"local activities"`) {
		t.Fatalf("run: %v, %v; want a config error naming both modes", res, err)
	}
}

// modeRewriter makes the run shapes its workers record name mode.
type modeRewriter struct {
	interceptor.WorkerInterceptorBase
	mode stepMode
}

func (m *modeRewriter) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &modeInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, mode: m.mode}
}

type modeInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	mode stepMode
}

func (i *modeInbound) Init(out interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&modeOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: out}, mode: i.mode})
}

type modeOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	mode stepMode
}

func (o *modeOutbound) SideEffect(ctx workflow.Context, f func(workflow.Context) any) converter.EncodedValue {
	return o.Next.SideEffect(ctx, func(ctx workflow.Context) any {
		v := f(ctx)
		if s, ok := v.(runShape); ok {
			s.Mode = o.mode
			return s
		}
		return v
	})
}
