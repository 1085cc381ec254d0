// Command approval is a file-cleanup agent that must ask before it runs a
// shell command. It lists a scratch directory, proposes an rm, and the run
// pauses: the program shows the pending call on the terminal, reads the
// answer (yes, no, always, or a replacement command), and resumes the run
// by its id from the session the runner stored it in. It runs on the
// scripted mock model, so it needs no API key; the shell command really
// runs, inside a temporary directory.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches it to a
// real model (examples/internal/envmodel; an error names the variable to
// set).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"io"
	"iter"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	// This program's Bash tool is its own, not tools/bash: it links the
	// shell parser the governance rules read its command lines with.
	_ "github.com/paigasus/helikon/governance/shellsyntax"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

func main() {
	dir, err := os.MkdirTemp("", "helikon-approval-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), os.Stdin, os.Stdout, dir); err != nil {
		log.Fatal(err)
	}
}

// askBash puts every Bash call to a human and allows everything else.
var askBash = governance.PolicyFunc(func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Tool == "Bash" {
		return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "Run this shell command?"}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAllow}
})

type bashArgs struct {
	Command string `json:"command" jsonschema:"the shell command to run"`
}

type lsArgs struct {
	Path string `json:"path" jsonschema:"the directory to list, relative to the workspace"`
}

func run(ctx context.Context, in io.Reader, out io.Writer, dir string) error {
	answers := bufio.NewReader(in)
	for _, name := range []string{"a.tmp", "b.tmp", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "files: %s\n", listing(dir))

	ls := helikon.MustTool("Ls", "List a directory.", func(_ *helikon.ToolContext, a lsArgs) (string, error) {
		return listing(filepath.Join(dir, filepath.Clean("/"+a.Path))), nil
	}, helikon.WithEffect(helikon.ReadOnly))
	bash := helikon.MustTool("Bash", "Run a shell command in the workspace.", func(tc *helikon.ToolContext, a bashArgs) (string, error) {
		cmd := exec.CommandContext(tc, "sh", "-c", a.Command)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%v: %s", err, b)
		}
		return "exit 0", nil
	})
	model, err := envmodel.Select(mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "Ls", Args: `{"path":"."}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "Bash", Args: `{"command":"rm -f a.tmp b.tmp"}`}),
		mock.Text("Cleanup finished.")))
	if err != nil {
		return err
	}
	cleaner, err := helikon.NewAgent("cleaner", model,
		helikon.WithInstructions("Delete the temporary files (*.tmp) in the workspace. Never touch anything else."),
		helikon.WithTools(ls, bash))
	if err != nil {
		return err
	}

	// The runner stores the paused run in the session: any process holding
	// the session could resume it by id, after a restart too.
	r := runner.New()
	rc := helikon.NewRunContext(helikon.WithSession(helikon.NewMemorySession()), governance.WithPermissionPolicy(askBash))
	stream := r.RunStreamed(ctx, cleaner, rc, helikon.UserText("Clean up the workspace."))
	for {
		paused, err := show(out, stream)
		if err != nil || !paused {
			if err == nil {
				fmt.Fprintf(out, "files: %s\n", listing(dir))
			}
			return err
		}
		pending, err := runner.Pending(ctx, rc.Session())
		if err != nil {
			return err
		}
		p := pending[0]
		var decisions []helikon.Decision
		for _, call := range p.Pending {
			d, err := ask(answers, out, call)
			if err != nil {
				return err
			}
			decisions = append(decisions, d)
		}
		stream = r.ResumePausedStreamed(ctx, cleaner, rc, p.RunID, decisions)
	}
}

// show prints a run's stream and reports whether it ended paused.
func show(out io.Writer, stream iter.Seq[helikon.Event]) (paused bool, err error) {
	for ev := range stream {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			u := e.Item.ToolUses()[0]
			fmt.Fprintf(out, "→ %s %s\n", u.Name, u.Args)
		case helikon.ToolOutputItem:
			r := e.Item.Content[0].(helikon.ToolResultPart)
			text := r.Content[0].(helikon.TextPart).Text
			var s string
			if json.Unmarshal([]byte(text), &s) == nil {
				text = s
			}
			fmt.Fprintf(out, "← %s\n", text)
		case helikon.MessageOutput:
			fmt.Fprintln(out, e.Item.Text())
		case helikon.RunPaused:
			fmt.Fprintf(out, "⏸ paused: %d call(s) wait for you\n", len(e.State.Pending))
			paused = true
		case helikon.RunFailed:
			err = e.Err
		}
	}
	return paused, err
}

// ask puts one pending call to the human on the terminal.
func ask(in *bufio.Reader, out io.Writer, p helikon.PendingApproval) (helikon.Decision, error) {
	var a bashArgs
	_ = json.Unmarshal(p.Args, &a)
	fmt.Fprintf(out, "%s wants to run %s: %s\n", p.Agent, p.Tool, a.Command)
	fmt.Fprintf(out, "(%s) [y]es, [n]o, [a]lways, or type the command to run instead: ", p.AskedBy)
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return helikon.Decision{}, err
	}
	line = strings.TrimSpace(line)
	fmt.Fprintln(out, line)
	switch line {
	case "y", "yes":
		return helikon.Approve(p.ID), nil
	case "a", "always":
		// Every later Bash call of this run is allowed without asking.
		return helikon.Always(p.ID, "Bash", helikon.ScopeRun), nil
	case "", "n", "no":
		return helikon.Reject(p.ID, "the user declined to run "+a.Command), nil
	}
	args, _ := json.Marshal(bashArgs{Command: line})
	return helikon.ApproveWithArgs(p.ID, args), nil
}

// listing names the files in dir, sorted.
func listing(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err.Error()
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}
