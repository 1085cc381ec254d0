package helikon_test

import (
	"context"
	"iter"
	"runtime"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
)

// s1Model is a stateless S1 model safe to share between concurrent runs: it
// calls add when the last message is the user's and answers once the tool
// result is in.
type s1Model struct{}

var (
	s1Call   = []helikon.ModelEvent{helikon.ToolCallDelta{CallID: "call_1", Name: "add", ArgsDelta: `{"a":40,"b":2}`}, helikon.Usage{InputTokens: 10, OutputTokens: 5}, helikon.Finish{Reason: helikon.FinishToolCalls}}
	s1Answer = []helikon.ModelEvent{helikon.TokenDelta{Text: "sum is 42"}, helikon.Usage{InputTokens: 10, OutputTokens: 5}, helikon.Finish{Reason: helikon.FinishStop}}
)

func (s1Model) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Tools: true}
}

func (s1Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	script := s1Call
	if req.Messages[len(req.Messages)-1].Role == helikon.RoleTool {
		script = s1Answer
	}
	return func(yield func(helikon.ModelEvent, error) bool) {
		for _, ev := range script {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func liveBytes() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse
}

// TestMemory_ThousandS1RunsInFlight holds 1000 S1 runs at their tool call at
// once and reports what each holds (heap and goroutine stack).
func TestMemory_ThousandS1RunsInFlight(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures are meaningless under -race; .ci/run measures this test without it")
	}
	const runs = 1000
	var arrived sync.WaitGroup
	arrived.Add(runs)
	release := make(chan struct{})
	add := helikon.MustTool("add", "Add two integers.", func(tc *helikon.ToolContext, in addArgs) (addOut, error) {
		arrived.Done()
		<-release
		return addOut{Sum: in.A + in.B}, nil
	})
	agent := mustAgent(t, "calc", s1Model{}, helikon.WithTools(add))
	input := helikon.UserText("what is 40+2?")

	before := liveBytes()
	var done sync.WaitGroup
	errs := make(chan error, runs)
	for range runs {
		done.Go(func() {
			res, err := helikon.Collect(agent.Run(context.Background(), nil, input))
			if err == nil && res.FinalOutput != "sum is 42" {
				err = context.Canceled
			}
			if err != nil {
				errs <- err
			}
		})
	}
	arrived.Wait()
	during := liveBytes()
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	perRun := float64(during-before) / runs
	t.Logf("1000 S1 runs in flight: %.0f bytes per run (heap + stack)", perRun)
	if perRun > 16<<10 {
		t.Errorf("%.0f bytes per in-flight run, budget 16 KiB", perRun)
	}
}
