// Command firstapp is the support agent docs/first-app.md builds: two
// function tools, a sandboxed workspace (Read, Write, Bash), a deny rule,
// approval before Bash, SQLite sessions, and an HTTP server with streaming
// and the dev UI. It runs on a scripted mock model, so it needs no API key.
//
//	go run ./examples/firstapp
//	open http://127.0.0.1:8080/ui/
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/session/sqlite"
	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/sandbox"
)

// Order is what lookup_order returns.
type Order struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Total  float64 `json:"total"`
}

// orders stands in for the shop's database.
var orders = map[string]Order{
	"A-1001": {ID: "A-1001", Status: "delivered, reported damaged", Total: 49.90},
	"A-1002": {ID: "A-1002", Status: "in transit", Total: 12.00},
}

type orderArgs struct {
	ID string `json:"id" jsonschema:"the order id, like A-1001"`
}

func lookupOrder(_ *helikon.ToolContext, in orderArgs) (Order, error) {
	o, ok := orders[in.ID]
	if !ok {
		return Order{}, fmt.Errorf("no order %q", in.ID)
	}
	return o, nil
}

type refundArgs struct {
	ID     string `json:"id" jsonschema:"the order id"`
	Reason string `json:"reason" jsonschema:"why the customer wants a refund"`
}

func requestRefund(_ *helikon.ToolContext, in refundArgs) (string, error) {
	if _, ok := orders[in.ID]; !ok {
		return "", fmt.Errorf("no order %q", in.ID)
	}
	return "refund R-" + in.ID + " opened: " + in.Reason, nil
}

func supportTools(workspace string) ([]helikon.Tool, error) {
	lookup, err := helikon.NewTool("lookup_order", "Look an order up by its id.", lookupOrder,
		helikon.WithEffect(helikon.ReadOnly))
	if err != nil {
		return nil, err
	}
	refund, err := helikon.NewTool("request_refund", "Open a refund for an order.", requestRefund)
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.Open(workspace)
	if err != nil {
		return nil, err
	}
	files, err := sb.Tools() // Read, Write, Edit, MultiEdit, confined to the workspace
	if err != nil {
		return nil, err
	}
	var backend bash.ExecutionBackend
	backend, err = bash.NewOsSandboxBackend(sb) // Landlock + seccomp; fails closed
	if err != nil {
		log.Printf("no OS sandbox here (%v): Bash runs on the host, in the workspace", err)
		if backend, err = bash.NewHostBackend(sb); err != nil {
			return nil, err
		}
	}
	sh, err := bash.New(backend)
	if err != nil {
		return nil, err
	}
	return append([]helikon.Tool{lookup, refund, sh}, files...), nil
}

// scriptedModel plays one support conversation. Swap it for a provider
// (openai.New, anthropic.New, …) to talk to a real model.
func scriptedModel() helikon.Model {
	return mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "lookup_order", Args: `{"id":"A-1001"}`}),
		mock.ToolCalls(
			mock.Call{ID: "c2", Name: "request_refund", Args: `{"id":"A-1001","reason":"arrived damaged"}`},
			mock.Call{ID: "c3", Name: "Write", Args: `{"file_path":"notes/A-1001.md","content":"Refund opened: arrived damaged.\n"}`},
			mock.Call{ID: "c4", Name: "Read", Args: `{"file_path":".env"}`},
		),
		mock.ToolCalls(mock.Call{ID: "c5", Name: "Bash", Args: `{"command":"ls notes"}`}),
		mock.Deltas("Your order A-1001 arrived damaged, ", "so I opened refund R-A-1001 ", "and noted it in notes/A-1001.md."),
	)
}

func newAgent(workspace string) (helikon.Agent, error) {
	tools, err := supportTools(workspace)
	if err != nil {
		return nil, err
	}
	return helikon.NewAgent("support", scriptedModel(),
		helikon.WithDescription("Answers questions about orders and opens refunds."),
		helikon.WithInstructions("You are a shop's support agent. Look orders up before you answer; "+
			"keep a note of every refund in notes/."),
		helikon.WithTools(tools...))
}

// askBeforeBash puts every Bash call to a human and lets the rest run.
var askBeforeBash = governance.PolicyFunc(func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Tool == "Bash" {
		return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "Run this command?"}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAllow}
})

func permissions() server.ContextProvider {
	return server.DefaultContext(
		governance.WithPermissionMode(governance.PermissionDefault), // the server starts runs in plan mode
		governance.WithDenyRules(governance.DenyRead(".env"), governance.DenyBash("curl")),
		governance.WithPermissionPolicy(askBeforeBash),
	)
}

func sessions(ctx context.Context, path string) (*sql.DB, server.SessionProvider, error) {
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if err := sqlite.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil // a request without X-Session-Id
		}
		return sqlite.OpenWithoutMigrate(db, id)
	}), nil
}

// newServer builds the whole app; the caller closes the database.
func newServer(ctx context.Context, workspace, dbPath string) (*server.Server, *sql.DB, error) {
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		return nil, nil, err
	}
	agent, err := newAgent(workspace)
	if err != nil {
		return nil, nil, err
	}
	db, store, err := sessions(ctx, dbPath)
	if err != nil {
		return nil, nil, err
	}
	srv, err := server.New([]helikon.Agent{agent},
		server.WithSessionProvider(store),
		server.WithContextProvider(permissions()),
		server.WithDevUI())
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return srv, db, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	workspace := flag.String("workspace", "workspace", "the directory the agent's files and commands live in")
	dbPath := flag.String("db", "sessions.db", "the SQLite file of the sessions")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv, db, err := newServer(ctx, *workspace, *dbPath)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	log.Printf("open http://%s/ui/", *addr)
	if err := srv.Serve(ctx, *addr); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}
