package temporal

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slowtest"
)

// scriptModel answers from the conversation alone, as a real model would,
// so a worker that replaces a crashed one gives the same answers: a turn
// that has seen n tool results makes the call calls[n] (a tool name and
// its arguments, built from the run's input), or answers once the calls are
// spent. Every turn is logged in the ledger as "[<name> ]model <turn>
// <input>".
type scriptModel struct {
	l     ledger
	name  string
	calls []func(run string) (tool, args string)
	// answer is the final text, from the input and the results.
	answer func(run string, results []string) string
}

func (scriptModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }

func (m scriptModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		var run string
		var results []string
		for _, it := range req.Messages {
			switch it.Role {
			case helikon.RoleUser:
				run = it.Text()
			case helikon.RoleTool:
				for _, p := range it.Content {
					if r, ok := p.(helikon.ToolResultPart); ok {
						results = append(results, r.Content[0].(helikon.TextPart).Text)
					}
				}
			}
		}
		line := fmt.Sprintf("model %d %s", len(results)+1, run)
		if m.name != "" {
			line = m.name + " " + line
		}
		if err := m.l.add(line); err != nil {
			yield(nil, err)
			return
		}
		var ev helikon.ModelEvent = helikon.TokenDelta{Text: m.answer(run, results)}
		if n := len(results); n < len(m.calls) {
			tool, args := m.calls[n](run)
			ev = helikon.ToolCallDelta{CallID: fmt.Sprint("c", n+1), Name: tool, ArgsDelta: args}
		}
		if yield(ev, nil) {
			yield(helikon.Usage{InputTokens: 10, OutputTokens: 5}, nil)
		}
	}
}

// leadAgent is the agent of the sub-run crash test: it asks the helper
// agent (an agent tool, run as a child workflow) about its run, then calls
// slow, then answers with both results. The helper records, then calls
// slow under "sub-" and the run's name, then answers.
func leadAgent(l ledger) (*helikon.LLMAgent, error) {
	record, slow := crashTools(l)
	helper, err := helikon.NewAgent("helper", scriptModel{l: l, name: "helper", calls: []func(string) (string, string){
		func(run string) (string, string) { return "record", fmt.Sprintf(`{"run":%q}`, run) },
		func(run string) (string, string) { return "slow", fmt.Sprintf(`{"run":"sub-%s"}`, run) },
	}, answer: func(run string, _ []string) string { return "h-" + run }}, helikon.WithTools(record, slow))
	if err != nil {
		return nil, err
	}
	tool, err := helikon.AgentAsTool(helper)
	if err != nil {
		return nil, err
	}
	return helikon.NewAgent("lead", scriptModel{l: l, name: "lead", calls: []func(string) (string, string){
		func(run string) (string, string) { return "helper", fmt.Sprintf(`{"input":%q}`, run) },
		func(run string) (string, string) { return "slow", fmt.Sprintf(`{"run":%q}`, run) },
	}, answer: doneAnswer}, helikon.WithTools(tool, slow))
}

// doneAnswer is the final answer of the crash tests' agents.
func doneAnswer(run string, results []string) string {
	return "done " + run + ": " + strings.Join(results, " ")
}

// TestCrashResume_FinishedSubAgentStepsAreNotRunAgain kills the worker
// twice per run: once in the middle of the helper sub-agent's slow call
// (inside its child workflow), once in the middle of the lead's own slow
// call, after the child finished. Each time a fresh worker process picks
// the run up; the ledger must show every finished step of the child and of
// the parent ran once.
func TestCrashResume_FinishedSubAgentStepsAreNotRunAgain(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	l := ledger(t.TempDir() + "/ledger")
	ag, err := leadAgent(l)
	if err != nil {
		t.Fatal(err)
	}
	queue := "crash-child"
	r, err := NewRunner(c, queue)
	if err != nil {
		t.Fatal(err)
	}
	w := startWorkerProcess(t, queue, l)
	// One run checks it; CI's HELIKON_SLOW_TESTS=1 repeats it.
	for i := range slowtest.Size(1, 3) {
		run := fmt.Sprintf("lead-%02d", i)
		id := "crash-child-" + run
		r.workflowID = func(string) string { return id }
		var o outcome
		o.res, o.err = runKilling(t, r, ag, l, run, &w, queue, "slow-start sub-"+run, "slow-start "+run)
		if o.err != nil {
			t.Fatalf("%s failed: %v", run, o.err)
		}
		want := fmt.Sprintf(`done %s: h-%s "s-%s"`, run, run, run)
		if o.res.FinalOutput != want {
			t.Fatalf("%s: output %q, want %q", run, o.res.FinalOutput, want)
		}
		for _, step := range []string{"lead model 1 ", "helper model 1 ", "record ", "helper model 2 ", "slow-done sub-", "helper model 3 ", "lead model 2 ", "slow-done ", "lead model 3 "} {
			if n := l.count(step + run); n != 1 {
				t.Errorf("%s: %q ran %d times, want once; ledger:\n%s", run, step+run, n, strings.Join(l.lines(), "\n"))
			}
		}
		for _, slow := range []string{"sub-" + run, run} {
			if n := l.count("slow-start " + slow); n != 2 {
				t.Errorf("%s: slow %s started %d times, want 2 (killed, then retried)", run, slow, n)
			}
		}
		// The sub-run is a child workflow in the parent's history.
		children := 0
		for _, ev := range history(t, c, id) {
			if a := ev.GetChildWorkflowExecutionCompletedEventAttributes(); a != nil {
				if a.GetWorkflowExecution().GetWorkflowId() != id+"/c1" {
					t.Errorf("child workflow id %q, want %q", a.GetWorkflowExecution().GetWorkflowId(), id+"/c1")
				}
				children++
			}
		}
		if children != 1 {
			t.Errorf("%s: %d completed child workflows in the history, want 1", run, children)
		}
	}
}
