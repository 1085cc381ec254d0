package mcp_test

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
)

// echoAgent answers "echo: <input>" after one turn that calls a tool and a
// second that answers, so that a client sees progress. An input starting
// with "slow" blocks until the run's context ends and records how it ended
// in the file named by HELIKON_MCP_CANCEL_FILE, if set.
type echoAgent struct {
	name string
	// started and cancelled, when set, receive a slow run's start and the
	// cause that ended it.
	started   chan struct{}
	cancelled chan error
}

func (a echoAgent) Name() string        { return a.name }
func (a echoAgent) Description() string { return "Echoes its input." }

func (a echoAgent) Run(ctx context.Context, _ *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		text := input[len(input)-1].Text()
		if !yield(helikon.RunStarted{Agent: a.name}) || !yield(helikon.TurnStarted{Agent: a.name, Turn: 1}) {
			return
		}
		use := helikon.ToolUsePart{CallID: "c1", Name: "lookup", Args: json.RawMessage(`{}`)}
		if !yield(helikon.ToolCallItem{Item: helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{use}}}) {
			return
		}
		if strings.HasPrefix(text, "slow") {
			if a.started != nil {
				a.started <- struct{}{}
			}
			if f := os.Getenv("HELIKON_MCP_STARTED_FILE"); f != "" {
				_ = os.WriteFile(f, nil, 0o600)
			}
			<-ctx.Done()
			if a.cancelled != nil {
				a.cancelled <- context.Cause(ctx)
			}
			if f := os.Getenv("HELIKON_MCP_CANCEL_FILE"); f != "" {
				_ = os.WriteFile(f, []byte(ctx.Err().Error()+" (cause: "+context.Cause(ctx).Error()+")"), 0o600)
			}
			yield(helikon.RunFailed{Err: ctx.Err()})
			return
		}
		if !yield(helikon.TurnStarted{Agent: a.name, Turn: 2}) {
			return
		}
		answer := helikon.Item{Role: helikon.RoleAssistant, Agent: a.name, Content: []helikon.ContentPart{helikon.TextPart{Text: "echo: " + text}}}
		if yield(helikon.MessageOutput{Item: answer}) {
			yield(helikon.RunCompleted{Agent: a.name})
		}
	}
}

// agentServerMain serves the echo agent over stdio when mode is
// "agent-stdio", as the TypeScript client and the disconnect test need a
// separate process.
func agentServerMain(mode string) (int, bool) {
	if mode != "agent-stdio" {
		return 0, false
	}
	s, err := mcp.NewAgentServer(echoAgent{name: "echo agent"}, mcp.WithImplementation("helikon-test", "1.2.3"),
		mcp.WithInstructions("Ask the echo agent anything."))
	if err != nil {
		return 2, true
	}
	if err := s.ServeStdio(context.Background()); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1, true
	}
	return 0, true
}
