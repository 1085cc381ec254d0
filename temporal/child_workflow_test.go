package temporal

import (
	"context"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// subAgentRun builds a writer whose one tool is an agent tool over a
// summarizer that itself calls add once before it answers.
func subAgentRun(t *testing.T, toolOpts ...helikon.AgentToolOption) (writer *helikon.LLMAgent, sub *mock.Model) {
	sub = mock.Scripted(mock.ToolCalls(mock.Call{ID: "s1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Text("short version"))
	summarizer := mustAgent(t, "summarizer", sub, helikon.WithTools(addTool))
	tool, err := helikon.AgentAsTool(summarizer, toolOpts...)
	if err != nil {
		t.Fatal(err)
	}
	return mustAgent(t, "writer", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "summarizer", Args: `{"input":"a long text"}`}),
		mock.Text("here it is"),
	), helikon.WithTools(tool)), sub
}

func TestWorkflow_AgentToolRunsAsAChildWorkflow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []helikon.AgentToolOption
		subCalls int
	}{
		{"the sub-run answers", nil, 2},
		// The tool's run configuration governs the sub-run, as in
		// process: one turn is not enough for the summarizer.
		{"the tool's run configuration holds", []helikon.AgentToolOption{helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 1})}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, _ := subAgentRun(t, tc.opts...)
			want, err := helikon.Collect(ref.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}

			writer, sub := subAgentRun(t, tc.opts...)
			env := newTestEnv()
			env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "parent"})
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{writer}})
			if err != nil {
				t.Fatal(err)
			}
			register(env, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
			var started []string
			var childIn runInput
			env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, args converter.EncodedValues) {
				started = append(started, info.WorkflowType.Name+" "+info.WorkflowExecution.ID)
				if err := args.Get(&childIn); err != nil {
					t.Error(err)
				}
			})
			env.ExecuteWorkflow(WorkflowName, runInput{Agent: "writer", Input: helikon.UserText("go")})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var out runOutput
			if err := env.GetWorkflowResult(&out); err != nil {
				t.Fatal(err)
			}
			if len(started) != 1 || started[0] != WorkflowName+" parent/c1" {
				t.Fatalf("child workflows %q, want one %s with id parent/c1", started, WorkflowName)
			}
			if childIn.Agent != "summarizer" || childIn.Sub == nil || childIn.Sub.Parent != "writer" || childIn.Sub.Depth != 1 || childIn.Input[0].Text() != "a long text" {
				t.Fatalf("child input %+v, want the summarizer one level down on the call's input", childIn)
			}
			if n := len(sub.Requests()); n != tc.subCalls {
				t.Fatalf("the sub-agent's model was called %d times, want %d", n, tc.subCalls)
			}
			p := queryEvents(t, env)
			got, w := encodeAll(t, p.Events), encodeAll(t, settled(want.Events))
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Fatalf("events differ from the in-process run's\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
			if out.Output != want.FinalOutput || out.Usage != want.Usage {
				t.Fatalf("result %q %+v, in process %q %+v", out.Output, out.Usage, want.FinalOutput, want.Usage)
			}
		})
	}
}
