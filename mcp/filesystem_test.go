package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
)

// The reference filesystem server's tools, through an agent run on the
// mock model: the model sees the real schemas, calls fs_read_text_file, and
// the file's text comes back as the tool result.
func TestFilesystem_AgentReadsAFileThroughMCP(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	note := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(note, []byte("the launch code is 0000"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fs, err := mcp.ConnectStdio(ctx, filesystem(t, dir), mcp.WithToolPrefix("fs_"))
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	args, _ := json.Marshal(map[string]string{"path": note})
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "fs_read_text_file", Args: string(args)}),
		mock.Text("The note says the launch code is 0000."),
	)
	agent, err := helikon.NewAgent("reader", model, helikon.WithToolSources(ctx, fs))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("What does note.txt say?")))
	if err != nil {
		t.Fatal(err)
	}
	var result helikon.ToolResultPart
	for _, ev := range res.Events {
		if out, ok := ev.(helikon.ToolOutputItem); ok {
			result = out.Item.Content[0].(helikon.ToolResultPart)
		}
	}
	if result.IsError || len(result.Content) == 0 || !strings.Contains(result.Content[0].(helikon.TextPart).Text, "the launch code is 0000") {
		t.Fatalf("tool result = %+v", result)
	}
	// The model was offered the server's real schema for the tool.
	var offered *helikon.ToolDef
	for _, d := range model.Requests()[0].Tools {
		if d.Name == "fs_read_text_file" {
			offered = &d
		}
	}
	if offered == nil || offered.Parameters == nil || offered.Parameters.Properties["path"] == nil {
		t.Fatalf("fs_read_text_file offered as %+v", offered)
	}
	if helikon.EffectOf(toolNamed(t, fs, "fs_write_file")) == helikon.Write {
		t.Fatal("write_file claims Write from untrusted annotations")
	}
}

// A call outside the server's allowed directory is the server's error
// result, which the agent's loop feeds back to the model; the run goes on.
func TestFilesystem_ToolErrorReachesTheModelAndTheRunContinues(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ctx := context.Background()
	fs, err := mcp.ConnectStdio(ctx, filesystem(t, dir), mcp.WithLazy())
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "search_tools", Args: `{"query":"READ_TEXT"}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "read_text_file", Args: `{"path":"/etc/passwd"}`}),
		mock.Text("I may not read that file."),
	)
	agent, err := helikon.NewAgent("reader", model, helikon.WithToolSources(ctx, fs))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("Read /etc/passwd")))
	if err != nil || res.FinalOutput != "I may not read that file." {
		t.Fatalf("run = %q %v, want it to continue past the tool error", res.FinalOutput, err)
	}
	var results []helikon.ToolResultPart
	for _, ev := range res.Events {
		if out, ok := ev.(helikon.ToolOutputItem); ok {
			results = append(results, out.Item.Content[0].(helikon.ToolResultPart))
		}
	}
	if len(results) != 2 || results[0].IsError || !strings.Contains(results[0].Content[0].(helikon.TextPart).Text, `"name":"read_text_file"`) {
		t.Fatalf("search_tools result = %+v", results)
	}
	if !results[1].IsError || !strings.Contains(results[1].Content[0].(helikon.TextPart).Text, "denied") {
		t.Fatalf("out-of-root read = %+v, want the server's access-denied error", results[1])
	}
	// In lazy mode the model saw placeholder schemas.
	for _, d := range model.Requests()[0].Tools {
		if d.Name == "read_text_file" && len(d.Parameters.Properties) != 0 {
			t.Fatalf("lazy mode offered the real schema: %+v", d.Parameters)
		}
	}
}
