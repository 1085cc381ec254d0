// Command agentcore serves an agent on AWS Bedrock AgentCore Runtime's
// container contract: GET /ping and POST /invocations on 0.0.0.0:8080, or,
// with -mcp, the agent as an MCP tool at /mcp on 0.0.0.0:8000 (a binary
// built with -tags mcp: the default build leaves the MCP SDK out).
//
// It runs on an echoing stand-in model by default (no key, no network);
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock (with the
// provider's key variable, or for bedrock AWS_REGION and the execution role
// AgentCore serves from the microVM's metadata service, or
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) switches it to a real
// model. With -sessions PATH (or HELIKON_SESSIONS, for example a file on
// the runtime's session storage mount) conversations live in SQLite;
// otherwise in memory, and are lost when AgentCore stops the microVM.
// Built with -tags nosqlite the binary leaves SQLite out and takes its
// sessions from memory only; -tags noopenai, noanthropic, nogemini or
// nobedrock leave a provider out. README.md gives each build's size.
//
//	go run ./examples/agentcore -addr 127.0.0.1:8080 &
//	curl -s localhost:8080/ping
//	curl -s localhost:8080/invocations -H 'Content-Type: application/json' \
//	  -H 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: 0123456789abcdef0123456789abcdef-1' \
//	  -d '{"prompt":"Hello"}'
//	curl -sN localhost:8080/invocations -H 'Content-Type: application/json' \
//	  -H 'Accept: text/event-stream' -d '{"prompt":"Hello"}'
//
// Build the container image (linux/arm64, from scratch) with the Dockerfile
// beside this file; see README.md there for the deployment.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"iter"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
)

func main() {
	addr := flag.String("addr", "", "listen address (default 0.0.0.0:8080, or 0.0.0.0:8000 with -mcp)")
	sessions := flag.String("sessions", os.Getenv("HELIKON_SESSIONS"), "SQLite file for the sessions (default: in memory)")
	mcpMode := flag.Bool("mcp", false, "serve the MCP protocol (/mcp on port 8000) instead of HTTP; needs a build with -tags mcp")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *sessions, *mcpMode); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr, sessionsPath string, mcpMode bool) error {
	model, err := selectModel(echoModel{})
	if err != nil {
		return err
	}
	agent, err := helikon.NewAgent("assistant", model,
		helikon.WithDescription("A helpful assistant."),
		helikon.WithInstructions("You are a helpful assistant. Answer briefly."))
	if err != nil {
		return err
	}
	var opts []agentcore.Option
	if sessionsPath != "" {
		sessions, closeSessions, err := sqliteSessions(ctx, sessionsPath)
		if err != nil {
			return err
		}
		defer closeSessions()
		opts = append(opts, agentcore.WithSessions(sessions))
	}
	if mcpMode {
		return serveMCP(ctx, agent, addr, opts)
	}
	srv, err := agentcore.New(agent, opts...)
	if err != nil {
		return err
	}
	addr = cmp.Or(addr, agentcore.DefaultAddr)
	fmt.Fprintf(os.Stderr, "agentcore: serving %q on %s\n", agent.Name(), addr)
	return srv.ListenAndServe(ctx, addr)
}

// echoModel stands in for a provider: it answers each request with the
// last user message, so the example runs with no key and no network.
type echoModel struct{}

func (echoModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Streaming: true}
}
func (echoModel) Provider() string { return "mock" }
func (echoModel) ModelID() string  { return "echo" }

func (echoModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		last := ""
		for _, m := range req.Messages {
			if m.Role == helikon.RoleUser {
				last = m.Text()
			}
		}
		_ = yield(helikon.TokenDelta{Text: "You said: " + last}, nil) &&
			yield(helikon.Usage{InputTokens: int64(len(last)), OutputTokens: int64(len(last)) + 10}, nil) &&
			yield(helikon.Finish{Reason: helikon.FinishStop}, nil)
	}
}
