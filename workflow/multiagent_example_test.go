package workflow_test

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon/workflow"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func ExampleHandoffTo() {
	investing, _ := helikon.NewAgent("investing specialist", mock.Scripted(mock.Text("Start with an index fund.")),
		helikon.WithDescription("Answers questions about investing."))
	triage, _ := helikon.NewAgent("triage",
		mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "transfer_to_investing_specialist", Args: `{}`})),
		helikon.WithHandoffs(helikon.HandoffTo(investing)))
	res, err := helikon.Collect(triage.Run(context.Background(), nil, helikon.UserText("How do I invest $5,000?")))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s\n", res.LastAgent, res.FinalOutput)
	// Output: investing specialist: Start with an index fund.
}

func ExampleAgentAsTool() {
	summarizer, _ := helikon.NewAgent("summarizer", mock.Scripted(mock.Text("Rates are up; jobs are steady.")),
		helikon.WithDescription("Condenses a block of text to one sentence."))
	tool, err := helikon.AgentAsTool(summarizer)
	if err != nil {
		panic(err)
	}
	writer, _ := helikon.NewAgent("writer", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "1", Name: "summarizer", Args: `{"input":"<a long article>"}`}),
		mock.Text("Thanks for asking: rates are up and hiring is steady.")),
		helikon.WithTools(tool))
	res, err := helikon.Collect(writer.Run(context.Background(), nil, helikon.UserText("Reply to the client.")))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: Thanks for asking: rates are up and hiring is steady.
}

func ExampleNewSequential() {
	researcher, _ := helikon.NewAgent("researcher", mock.Scripted(mock.Text("rates rose 0.25%")))
	writer, _ := helikon.NewAgent("writer", mock.Scripted(mock.Text("Brief: rates rose a quarter point.")),
		helikon.WithInstructionsFunc(func(_ context.Context, rc *helikon.RunContext) (string, error) {
			return "Write a brief from these notes: " + rc.State().String("researcher"), nil
		}))
	pipeline, err := workflow.NewSequential("research-then-write", workflow.Step(researcher), workflow.Step(writer))
	if err != nil {
		panic(err)
	}
	rc := helikon.Ephemeral()
	res, err := helikon.Collect(pipeline.Run(context.Background(), rc, helikon.UserText("What happened to rates?")))
	if err != nil {
		panic(err)
	}
	fmt.Println(rc.State().String("researcher"))
	fmt.Println(res.FinalOutput)
	// Output:
	// rates rose 0.25%
	// Brief: rates rose a quarter point.
}

func ExampleNewParallel() {
	optimist, _ := helikon.NewAgent("optimist", mock.Scripted(mock.Text("Growth ahead.")))
	pessimist, _ := helikon.NewAgent("pessimist", mock.Scripted(mock.Text("Recession risk.")))
	lenses, err := workflow.NewParallel("multi-lens", workflow.Step(optimist), workflow.Step(pessimist))
	if err != nil {
		panic(err)
	}
	res, err := helikon.Collect(lenses.Run(context.Background(), nil, helikon.UserText("Outlook?")))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: {"optimist":"Growth ahead.","pessimist":"Recession risk."}
}

func ExampleNewLoop() {
	approve := helikon.MustTool("approve", "Approve the draft.", func(tc *helikon.ToolContext, _ struct{}) (string, error) {
		tc.Actions().Escalate() // stop the enclosing loop after this sub-agent
		return "approved", nil
	})
	drafter, _ := helikon.NewAgent("drafter", mock.Scripted(mock.Text("draft 1"), mock.Text("draft 2")))
	critic, _ := helikon.NewAgent("critic", mock.Scripted(
		mock.Text("Too long."),
		mock.ToolCalls(mock.Call{ID: "1", Name: "approve", Args: `{}`}), mock.Text("Good.")),
		helikon.WithTools(approve))
	refine, err := workflow.NewLoop("draft-and-critique", 5, workflow.Step(drafter), workflow.Step(critic))
	if err != nil {
		panic(err)
	}
	rc := helikon.Ephemeral()
	if _, err := helikon.Collect(refine.Run(context.Background(), rc, helikon.UserText("Write a tagline."))); err != nil {
		panic(err)
	}
	fmt.Println(rc.State().String("drafter"), "/", rc.State().String("critic"))
	// Output: draft 2 / Good.
}

func ExampleNewSwarm() {
	triage, _ := helikon.NewAgent("triage",
		mock.Scripted(mock.ToolCalls(mock.Call{ID: "1", Name: "transfer_to_budgeting", Args: `{}`})))
	budgeting, _ := helikon.NewAgent("budgeting", mock.Scripted(mock.Text("Cap dining at $250 a month.")),
		helikon.WithDescription("Answers budget questions."))
	investing, _ := helikon.NewAgent("investing", mock.Scripted(),
		helikon.WithDescription("Answers investing questions."))
	swarm, err := workflow.NewSwarm("support", workflow.Members(triage, budgeting, investing), workflow.WithMaxHandoffs(6))
	if err != nil {
		panic(err)
	}
	res, err := helikon.Collect(swarm.Run(context.Background(), nil, helikon.UserText("I overspend on dining.")))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s\n", res.LastAgent, res.FinalOutput)
	// Output: budgeting: Cap dining at $250 a month.
}

func ExampleNewGraph() {
	spending, _ := helikon.NewAgent("spending", mock.Scripted(mock.Text("spent $3,310")))
	income, _ := helikon.NewAgent("income", mock.Scripted(mock.Text("earned $4,200")))
	summary, _ := helikon.NewAgent("summary", mock.Scripted(mock.Text("You saved $890.")))
	report, err := workflow.NewGraph("finance_report",
		workflow.Node("spending", spending),
		workflow.Node("income", income),
		workflow.Node("summary", summary), // sees both outputs as labelled messages
		workflow.Edge("spending", "summary"),
		workflow.Edge("income", "summary"))
	if err != nil {
		panic(err)
	}
	res, err := helikon.Collect(report.Run(context.Background(), nil, helikon.UserText("How did November go?")))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: You saved $890.
}
