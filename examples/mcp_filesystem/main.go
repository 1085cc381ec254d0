// Command mcp_filesystem gives an agent the tools of the reference MCP
// filesystem server (@modelcontextprotocol/server-filesystem) and lets it
// read a file. It starts the server as a child process over stdio, adapts
// its tools under an "fs_" prefix, and runs the agent on a scripted mock
// model, so it needs no API key:
//
//	(cd mcp/testdata/npm && npm ci)   # once: installs the reference servers
//	go run ./examples/mcp_filesystem
//
// To run the server from npm instead: go run ./examples/mcp_filesystem npx -y @modelcontextprotocol/server-filesystem
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches it to a
// real model (examples/internal/envmodel; an error names the variable to
// set).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
)

// defaultServer is the filesystem server installed by npm ci, relative to
// the repository root.
var defaultServer = []string{"node", "mcp/testdata/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"}

func main() {
	server := defaultServer
	if len(os.Args) > 1 {
		server = os.Args[1:]
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, server, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves a fresh directory holding one note with server (a command and
// its arguments, to which the directory is appended) and has the agent
// read the note.
func run(ctx context.Context, server []string, out io.Writer) error {
	dir, err := os.MkdirTemp("", "mcp-filesystem-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	note := filepath.Join(dir, "groceries.txt")
	if err := os.WriteFile(note, []byte("eggs\nflour\nmilk\n"), 0o600); err != nil {
		return err
	}

	cmd := exec.Command(server[0], append(server[1:], dir)...)
	fs, err := mcp.ConnectStdio(ctx, cmd, mcp.WithToolPrefix("fs_"))
	if err != nil {
		return err
	}
	defer fs.Close()

	// The scripted model lists the directory, reads the note, and answers.
	listArgs, _ := json.Marshal(map[string]string{"path": dir})
	readArgs, _ := json.Marshal(map[string]string{"path": note})
	model, err := envmodel.Select(mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "fs_list_directory", Args: string(listArgs)}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "fs_read_text_file", Args: string(readArgs)}),
		mock.Text("You need eggs, flour and milk."),
	))
	if err != nil {
		return err
	}
	agent, err := helikon.NewAgent("shopper", model,
		helikon.WithInstructions("Answer from the files you can read."),
		helikon.WithToolSources(ctx, fs))
	if err != nil {
		return err
	}
	tools, _ := fs.Tools(ctx)
	fmt.Fprintf(out, "%d filesystem tools\n", len(tools))
	for ev := range agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("What is on my grocery list?")) {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			for _, u := range e.Item.ToolUses() {
				fmt.Fprintf(out, "→ %s\n", u.Name)
			}
		case helikon.ToolOutputItem:
			r := e.Item.Content[0].(helikon.ToolResultPart)
			fmt.Fprintf(out, "← %s\n", r.Content[0].(helikon.TextPart).Text)
		case helikon.MessageOutput:
			fmt.Fprintln(out, e.Item.Text())
		case helikon.RunFailed:
			return e.Err
		}
	}
	return nil
}
