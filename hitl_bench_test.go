package helikon_test

import (
	"context"
	"encoding/json"
	"github.com/paigasus/helikon/governance"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
)

// askAdd puts every call of add to a human.
type askAdd struct{}

func (askAdd) Check(context.Context, *helikon.RunContext, helikon.PermissionRequest) governance.PermissionDecision {
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "add?"}
}

var askAddContext = helikon.NewRunContext(governance.WithPermissionPolicy(askAdd{}))

// pauseResumeS1 is S1 with its one call put to a human: the run pauses,
// the state is encoded to JSON and decoded, and the run resumes approved
// to the end.
func pauseResumeS1(tb testing.TB, ctx context.Context, scripts []mock.Script) {
	agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
	res, err := helikon.Collect(agent.Run(ctx, askAddContext, helikon.UserText("what is 40+2?")))
	if res.Paused == nil {
		tb.Fatalf("did not pause: %v", err)
	}
	data, err := json.Marshal(res.Paused)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := helikon.UnmarshalRunState(data)
	if err != nil {
		tb.Fatal(err)
	}
	res, err = helikon.Collect(helikon.Resume(ctx, agent, askAddContext, st, []helikon.Decision{helikon.Approve(st.Pending[0].ID)}))
	if err != nil || res.FinalOutput != "sum is 42" {
		tb.Fatalf("resume: %v, %v", res, err)
	}
}

// BenchmarkPauseResume is S1 paused at its call, the state encoded and
// decoded, and resumed to the end.
func BenchmarkPauseResume(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	b.ReportAllocs()
	for b.Loop() {
		pauseResumeS1(b, ctx, scripts)
	}
}

// BenchmarkPauseResumeVsRun times the paused-and-resumed S1 and the
// uninterrupted S1 within every iteration, swapping their order, and
// reports the ratio (x-run): what a pause costs beyond the run itself.
func BenchmarkPauseResumeVsRun(b *testing.B) {
	ctx := context.Background()
	scripts := s1Scripts()
	run := func() {
		agent, _ := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(addTool))
		res, err := helikon.Collect(agent.Run(ctx, nil, helikon.UserText("what is 40+2?")))
		if err != nil || res.FinalOutput != "sum is 42" {
			b.Fatalf("run: %v, %v", res, err)
		}
	}
	paused := func() { pauseResumeS1(b, ctx, scripts) }
	benchpair.Run(b, "run", run, "pause-resume", paused)
}
