// Command mcp_serve serves an agent as an MCP tool over stdio: any MCP
// client (Claude Desktop, an IDE, the TypeScript SDK, another Helikon agent
// through mcp.ConnectStdio) can start it and call the word_counter tool with
// {"input": "some text"}.
//
//	go build -o word-counter ./examples/mcp_serve
//	# then register ./word-counter as a stdio MCP server in your client
//
// The agent runs a real tool loop on a small offline model, so it needs no
// API key: the model calls count_words on the input, then answers with the
// count.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches it to a
// real model (examples/internal/envmodel; an error names the variable to
// set).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mcp"
)

// CountArgs are count_words's arguments.
type CountArgs struct {
	Text string `json:"text" jsonschema:"the text to count the words of"`
}

// Count is count_words's result.
type Count struct {
	Words int `json:"words" jsonschema:"how many whitespace-separated words the text has"`
}

var countWords = helikon.MustTool("count_words", "Count the words of a text.",
	func(_ *helikon.ToolContext, in CountArgs) (Count, error) {
		return Count{Words: len(strings.Fields(in.Text))}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

// newServer builds the agent and its MCP server.
func newServer() (*mcp.AgentServer, error) {
	model, err := envmodel.Select(countingModel{})
	if err != nil {
		return nil, err
	}
	agent, err := helikon.NewAgent("word counter", model,
		helikon.WithDescription("Counts the words of a text."),
		helikon.WithTools(countWords))
	if err != nil {
		return nil, err
	}
	return mcp.NewAgentServer(agent,
		mcp.WithImplementation("word-counter", "1.0.0"),
		mcp.WithInstructions("Send the text whose words you want counted."),
		mcp.WithRunConfig(helikon.RunConfig{MaxTurns: 4, Timeout: 30 * time.Second}))
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	server, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(ctx); err != nil {
		log.Fatal(err)
	}
}

// countingModel stands in for an LLM: on a fresh question it calls
// count_words with the user's text; once the tool has answered it reports
// the count.
type countingModel struct{}

// Capabilities says the model streams and calls tools.
func (countingModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true, Tools: true}
}

// Invoke answers one turn.
func (countingModel) Invoke(_ context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == helikon.RoleTool {
			result := last.Content[0].(helikon.ToolResultPart)
			text := result.Content[0].(helikon.TextPart).Text
			var c Count
			_ = json.Unmarshal([]byte(text), &c)
			_ = yield(helikon.TokenDelta{Text: fmt.Sprintf("That text has %d words.", c.Words)}, nil) &&
				yield(helikon.Finish{Reason: helikon.FinishStop}, nil)
			return
		}
		args, _ := json.Marshal(CountArgs{Text: last.Text()})
		_ = yield(helikon.ToolCallDelta{CallID: "count-1", Name: "count_words", ArgsDelta: string(args)}, nil) &&
			yield(helikon.Finish{Reason: helikon.FinishToolCalls}, nil)
	}
}
