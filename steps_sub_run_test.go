package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestSteps_DeferredSubRunSettlesLikeTheInProcessAgentTool runs an agent
// tool's call twice through Steps: once whole, once deferred (the step
// stops before the sub-agent runs, the test runs the sub-agent itself and
// settles the call). The results must match, and a deferred step must not
// run the sub-agent.
func TestSteps_DeferredSubRunSettlesLikeTheInProcessAgentTool(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sub     func() helikon.Model
		args    string
		failure bool
	}{
		{"answer", func() helikon.Model { return mock.Scripted(mock.Text("short version")) }, `{"input":"a long text"}`, false},
		{"failed sub-run", func() helikon.Model { return mock.Scripted(mock.Fail(errors.New("provider down"))) }, `{"input":"a long text"}`, true},
		{"invalid arguments", func() helikon.Model { return mock.Scripted(mock.Text("never")) }, `{"input":7}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			build := func() (*helikon.LLMAgent, *helikon.AgentTool, *helikon.LLMAgent) {
				sub, err := helikon.NewAgent("summarizer", tc.sub())
				if err != nil {
					t.Fatal(err)
				}
				tool, err := helikon.AgentAsTool(sub)
				if err != nil {
					t.Fatal(err)
				}
				writer, err := helikon.NewAgent("writer", mock.Scripted(mock.Text("x")), helikon.WithTools(tool))
				if err != nil {
					t.Fatal(err)
				}
				return sub, tool, writer
			}
			call := helikon.ToolCall{CallID: "c1", Name: "summarizer", Args: []byte(tc.args)}
			_, _, ref := build()
			whole := ref.Steps(nil).CallTool(ctx, call)

			sub, tool, writer := build()

			steps := writer.Steps(nil).DeferSubRuns(func(at *helikon.AgentTool) bool { return at == tool })
			st := steps.CallTool(ctx, call)
			if tc.name == "invalid arguments" {
				if st.SubRun != nil || !st.Result.IsError || !st.Result.InvalidArgs {
					t.Fatalf("step %+v, want the invalid arguments settled without a sub-run", st)
				}
				return
			}
			if st.SubRun == nil || st.SubRun.Agent != "summarizer" || st.SubRun.Input != "a long text" || st.SubRun.Tool != "summarizer" {
				t.Fatalf("sub-run %+v, want the summarizer on the call's input", st.SubRun)
			}
			if len(st.Result.Content) != 0 {
				t.Fatalf("a deferred call has a result: %+v", st.Result)
			}
			// The runner's sub-run: the same agent, in process here.
			res, runErr := helikon.Collect(sub.Run(ctx, helikon.Ephemeral(), helikon.UserText(st.SubRun.Input)))
			var output string
			var usage helikon.Usage
			if res != nil {
				output, usage = res.FinalOutput, res.Usage
			}
			if (runErr != nil) != tc.failure {
				t.Fatalf("sub-run error %v", runErr)
			}
			got := steps.SettleSubRun(ctx, call, *st.SubRun, output, usage, runErr)
			if a, b := render(t, got.Result), render(t, whole.Result); a != b || got.Usage != whole.Usage {
				t.Fatalf("settled %s %+v, in process %s %+v", a, got.Usage, b, whole.Usage)
			}
		})
	}
}

func render(t *testing.T, r helikon.ToolResult) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return withoutTimes(t, b)
}
