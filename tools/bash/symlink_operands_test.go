package bash

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
)

// TestBash_OperandsAreMatchedWhereTheyResolveInTheWorkspace runs real
// agents whose Bash calls write through symlinks of the workspace (s ->
// src, g -> .git, loop -> loop): the rules see where each path leads, so
// the denied or asked command never runs, and the files it aimed at are
// untouched.
func TestBash_OperandsAreMatchedWhereTheyResolveInTheWorkspace(t *testing.T) {
	tests := []struct {
		name    string
		opts    []helikon.ContextOption
		command string
		intact  string // a file that must be unchanged (empty: must not exist)
		absent  string
	}{
		{"rm through a link under DenyEdit", []helikon.ContextOption{governance.WithDenyRules(governance.DenyEdit("src/**"))},
			"rm -rf s/x", "src/x", ""},
		{"redirect through a link under DenyEdit", []helikon.ContextOption{governance.WithDenyRules(governance.DenyEdit("src/**"))},
			"echo planted > s/x", "src/x", ""},
		{"a git hook through a link", nil, "printf 'touch pwned' > g/hooks/pre-commit", "", ".git/hooks/pre-commit"},
		{"a git hook through a glob that matches the link", nil, "cp src/x g*/hooks/pre-commit", "", ".git/hooks/pre-commit"},
		{"a git hook after cd into the link", nil, "cd g/hooks && echo x > pre-commit", "", ".git/hooks/pre-commit"},
		{"a write through a loop", nil, "echo x > loop/a || true; echo x > a2", "", "a2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := openSandbox(t)
			dir := sb.Dir()
			for _, d := range []string{"src", ".git/hooks"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "src/x"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			for link, target := range map[string]string{"s": "src", "g": ".git", "loop": "loop"} {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := json.Marshal(map[string]string{"command": tt.command})
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "run", Name: "Bash", Args: string(b)}), mock.Text("done"))
			agent, err := helikon.NewAgent("dev", m, helikon.WithTools(hostTool(t, sb, nil)))
			if err != nil {
				t.Fatal(err)
			}
			rec := &refuser{asked: map[string]string{}}
			rc := helikon.NewRunContext(append(tt.opts, helikon.WithApprovalHandler(rec))...)
			res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			refused := false
			for _, ev := range res.Events {
				if d, ok := ev.(helikon.PermissionDenied); ok && d.CallID == "run" {
					refused = true
				}
			}
			if !refused {
				t.Errorf("the command was not refused (asked: %q)", rec.asked["run"])
			}
			if tt.intact != "" {
				if got, err := os.ReadFile(filepath.Join(dir, tt.intact)); err != nil || string(got) != "keep" {
					t.Errorf("%s changed: %q, %v", tt.intact, got, err)
				}
			}
			if tt.absent != "" {
				if _, err := os.Lstat(filepath.Join(dir, tt.absent)); err == nil {
					t.Errorf("%s was written", tt.absent)
				}
			}
		})
	}
}
