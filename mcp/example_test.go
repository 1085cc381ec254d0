package mcp_test

import (
	"context"
	"fmt"
	"iter"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
)

// A server's tools become an agent's tools. The server here is a go-sdk
// server in the same process; ConnectStdio and ConnectHTTP reach real ones.
func ExampleConnect() {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	server.AddTool(&sdk.Tool{
		Name:        "forecast",
		Description: "Tomorrow's forecast for a city.",
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "sunny, 21°C"}}}, nil
	})
	serverSide, clientSide := sdk.NewInMemoryTransports()
	session, _ := server.Connect(ctx, serverSide, nil)
	defer session.Wait()

	weather, err := mcp.Connect(ctx, clientSide, mcp.WithToolPrefix("weather_"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer weather.Close()

	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "weather_forecast", Args: `{"city":"Lisbon"}`}),
		mock.Text("Tomorrow in Lisbon: sunny, 21°C."),
	)
	agent, err := helikon.NewAgent("assistant", model, helikon.WithToolSources(ctx, weather))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range agent.Tools() {
		fmt.Println(t.Name(), helikon.EffectOf(t))
	}
	res, err := helikon.Collect(agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("Weather in Lisbon tomorrow?")))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.FinalOutput)
	// Output:
	// weather_forecast read_only
	// Tomorrow in Lisbon: sunny, 21°C.
}

// greeter is an agent that answers without a model.
type greeter struct{}

func (greeter) Name() string        { return "greeter" }
func (greeter) Description() string { return "Greets whoever it is told about." }
func (greeter) Run(_ context.Context, _ *helikon.RunContext, in []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		answer := helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "Hello, " + in[0].Text() + "!"}}}
		_ = yield(helikon.MessageOutput{Item: answer}) && yield(helikon.RunCompleted{})
	}
}

// Any agent becomes one MCP tool taking {"input": string}. ServeStdio and
// ListenAndServe serve real clients; here a go-sdk client calls it in
// process.
func ExampleNewAgentServer() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server, err := mcp.NewAgentServer(greeter{}, mcp.WithImplementation("greeter", "1.0.0"))
	if err != nil {
		fmt.Println(err)
		return
	}
	serverSide, clientSide := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- server.ServeTransport(ctx, serverSide) }()
	defer func() { <-served }() // runs after the session closes

	client := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: server.ToolName(), Arguments: map[string]any{"input": "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output: Hello, Ada!
}
