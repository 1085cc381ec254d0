// Command durable runs an agent durably on Temporal: it starts a local
// Temporal dev server, a worker that registers the agent, and a client
// that runs it and follows its events. The run is a workflow: each model
// turn and each tool call is an activity recorded in the run's history, so
// a worker that crashed mid-run would be replaced by another that carries
// on from the last finished step. It runs on the scripted mock model, so it
// needs no API key; HELIKON_PROVIDER=openai, anthropic, gemini or bedrock
// (with the provider's key variable) switches the worker's model to a real
// one (examples/internal/envmodel picks it). The client does not change:
// it names the agent, and the worker's registered agent is what runs. It
// needs the Temporal CLI:
//
//	GOBIN=${XDG_CACHE_HOME:-$HOME/.cache}/helikon/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/temporal"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

type spendingArgs struct {
	Category string `json:"category" jsonschema:"spending category, e.g. Dining"`
}

type account struct {
	Tenant string `json:"tenant"`
}

// lookupSpending reads the tenant from the run's user value, which the
// worker built from the seed the client sent.
var lookupSpending = helikon.MustTool("lookup_spending", "Look up this month's spending in a category.",
	func(tc *helikon.ToolContext, in spendingArgs) (map[string]any, error) {
		acct, ok := helikon.User[account](tc)
		if !ok {
			return nil, errors.New("no account")
		}
		return map[string]any{"tenant": acct.Tenant, "category": in.Category, "total": 212.40}, nil
	}, helikon.WithEffect(helikon.ReadOnly))

func run(ctx context.Context, w io.Writer) error {
	model, err := envmodel.Select(mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "lookup_spending", Args: `{"category":"Dining"}`}),
		mock.Text("You spent $212.40 on dining this month."),
	))
	if err != nil {
		return err
	}
	c, stop, err := startDevServer(ctx)
	if err != nil {
		return err
	}
	defer stop()

	agent, err := helikon.NewAgent("budget-assistant", model,
		helikon.WithInstructions("You are a budgeting assistant."),
		helikon.WithTools(lookupSpending))
	if err != nil {
		return err
	}

	// The worker: it runs the agent's steps, under its own posture.
	worker, err := temporal.NewWorker(c, "budget",
		temporal.WithAgents(agent),
		temporal.WithPosture(temporal.WorkerPosture{Mode: governance.PermissionDefault}),
		temporal.WithContextFactory(func(_ context.Context, seed json.RawMessage) (any, error) {
			var a account
			if err := json.Unmarshal(seed, &a); err != nil || a.Tenant == "" {
				return nil, errors.New("the seed must name a tenant")
			}
			return a, nil
		}))
	if err != nil {
		return err
	}
	if err := worker.Start(); err != nil {
		return err
	}
	defer worker.Stop()

	// The client: only the conversation and the explicit seed cross.
	runner, err := temporal.NewRunner(c, "budget",
		temporal.WithWorkflowID(func(string) string { return "budget-run-1" }),
		temporal.WithSeed(func(*helikon.RunContext) (any, error) { return account{Tenant: "acme"}, nil }))
	if err != nil {
		return err
	}
	question := "How much did I spend on dining?"
	fmt.Fprintf(w, "user: %s\n", question)
	for ev := range runner.RunStreamed(ctx, agent, nil, helikon.UserText(question)) {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			u := e.Item.ToolUses()[0]
			fmt.Fprintf(w, "[activity InvokeTool %s %s]\n", u.Name, u.Args)
		case helikon.ToolOutputItem:
			res := e.Item.Content[0].(helikon.ToolResultPart)
			fmt.Fprintf(w, "[tool result %s]\n", res.Content[0].(helikon.TextPart).Text)
		case helikon.MessageOutput:
			fmt.Fprintf(w, "%s: %s\n", e.Item.Agent, e.Item.Text())
		case helikon.RunCompleted:
			fmt.Fprintf(w, "(workflow budget-run-1 completed: %d input + %d output tokens)\n", e.Usage.InputTokens, e.Usage.OutputTokens)
		case helikon.RunFailed:
			return e.Err
		}
	}
	return nil
}

// startDevServer starts a Temporal dev server on a free loopback port with
// a throwaway database and returns a client of it. The database is kept in
// memory and eager activities are on: the settings docs/durable.md
// measured as the dev server's fastest.
func startDevServer(ctx context.Context) (client.Client, func(), error) {
	exe, err := findCLI()
	if err != nil {
		return nil, nil, fmt.Errorf("the Temporal CLI is needed: GOBIN=${XDG_CACHE_HOME:-$HOME/.cache}/helikon/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (%w)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	addr := l.Addr().String()
	l.Close()
	quiet := tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  exe,
		LogLevel:      "error",
		ClientOptions: &client.Options{HostPort: addr, Logger: quiet},
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		// A worker that completes a workflow task gets the activity it
		// scheduled in the reply, saving a trip through the task queue.
		ExtraArgs: []string{"--dynamic-config-value", "system.enableActivityEagerExecution=true"},
	})
	if err != nil {
		return nil, nil, err
	}
	return srv.Client(), func() { _ = srv.Stop() }, nil
}

func findCLI() (string, error) {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	if p := filepath.Join(cache, "helikon", "bin", "temporal"); fileExists(p) {
		return p, nil
	}
	return exec.LookPath("temporal")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
