// Command explore_sandbox gives an agent the ready-made tools — Read,
// Write, Edit and Bash — on a workspace directory, with Bash confined by
// the kernel (Landlock and seccomp). The scripted model reads a file,
// edits it, runs a command, and tries to leave the workspace three ways;
// every escape is refused and the output shows how. It runs on the mock
// model by default, so it needs no API key.
//
//	go run ./examples/explore_sandbox
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/sandbox"
)

// scriptedModel plays the turns a model exploring the workspace takes.
func scriptedModel() helikon.Model {
	return mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "Read", Args: `{"file_path":"notes.md"}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "Edit", Args: `{"file_path":"notes.md","old_string":"- [ ] water the plants","new_string":"- [x] water the plants"}`}),
		mock.ToolCalls(mock.Call{ID: "c3", Name: "Bash", Args: `{"command":"grep -c '\\[x\\]' notes.md && wc -l < notes.md"}`}),
		mock.ToolCalls(
			mock.Call{ID: "c4", Name: "Read", Args: `{"file_path":"../../etc/passwd"}`},
			mock.Call{ID: "c5", Name: "Bash", Args: `{"command":"cat /etc/shadow"}`},
			mock.Call{ID: "c6", Name: "Bash", Args: `{"command":"cat < /dev/tcp/127.0.0.1/22"}`},
		),
		mock.Text("The plants are watered: one of two tasks is done. I stayed inside the workspace."),
	)
}

func main() {
	dir, err := os.MkdirTemp("", "explore-sandbox-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), os.Stdout, dir); err != nil {
		log.Fatal(err)
	}
}

// run seeds the workspace dir, runs the agent in it and writes what
// happens to out.
func run(ctx context.Context, out io.Writer, dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Today\n- [ ] water the plants\n- [ ] write the report\n"), 0o644); err != nil {
		return err
	}
	sb, err := sandbox.Open(dir)
	if err != nil {
		return err
	}
	defer sb.Close()
	files, err := sb.Tools()
	if err != nil {
		return err
	}
	// Fail closed: without Landlock and seccomp there is no Bash, rather
	// than a Bash that runs unconfined.
	backend, err := bash.NewOsSandboxBackend(sb)
	if err != nil {
		return err
	}
	sh, err := bash.New(backend)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Bash runs under: %s\n", sh.Guarantees().Label)
	model, err := envmodel.Select(scriptedModel())
	if err != nil {
		return err
	}
	agent, err := helikon.NewAgent("sandbox-explorer", model,
		helikon.WithInstructions("You can inspect and change the workspace with Read, Write, Edit and Bash. Stay inside it."),
		helikon.WithTools(append(files, sh)...))
	if err != nil {
		return err
	}
	for ev := range agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("Mark the plants as watered and count the tasks done.")) {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			u := e.Item.ToolUses()[0]
			fmt.Fprintf(out, "→ %s %s\n", u.Name, u.Args)
		case helikon.ToolOutputItem:
			fmt.Fprintf(out, "← %s\n", resultText(e.Item.Content[0].(helikon.ToolResultPart)))
		case helikon.MessageOutput:
			fmt.Fprintln(out, e.Item.Text())
		case helikon.RunFailed:
			return e.Err
		case helikon.RunPaused:
			for _, p := range e.State.Pending {
				fmt.Fprintf(out, "⏸ %+v\n", p)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.md"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "notes.md now:\n%s", b)
	return nil
}

// resultText renders a tool result on one line: a Bash result as its exit
// code and output, anything else as its text.
func resultText(r helikon.ToolResultPart) string {
	text := r.Content[0].(helikon.TextPart).Text
	var res bash.Result
	if json.Unmarshal([]byte(text), &res) == nil && strings.HasPrefix(text, `{"exit_code"`) {
		text = fmt.Sprintf("exit %d: %s", res.ExitCode, strings.TrimSpace(res.Stdout+res.Stderr))
	} else {
		var s string
		if json.Unmarshal([]byte(text), &s) == nil {
			text = s
		}
	}
	if r.IsError {
		text = "error: " + text
	}
	return strings.ReplaceAll(strings.TrimSpace(text), "\n", " | ")
}
