package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/tools/sandbox"
)

// askRecorder refuses every ask and records which calls were asked about.
type askRecorder struct {
	mu    sync.Mutex
	asked map[string]bool
}

func (a *askRecorder) Decide(_ context.Context, req helikon.PermissionRequest, _ string) helikon.ApprovalOutcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked[req.CallID] = true
	return helikon.ApprovalOutcome{Allow: false, Reason: "refused by test"}
}

// runWrite runs one sandbox Write of path in dir (after setup made its
// symlinks) under opts, and returns the calls that were asked about and
// denied.
func runWrite(t *testing.T, dir, path string, opts ...helikon.ContextOption) (asked, denied map[string]bool) {
	t.Helper()
	sb, err := sandbox.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ts, err := sb.Tools()
	if err != nil {
		t.Fatal(err)
	}
	m := mock.Scripted(mock.ToolCalls(
		mock.Call{ID: "w", Name: "Write", Args: `{"file_path":"` + path + `","content":"#!/bin/sh\necho planted\n"}`},
	), mock.Text("done"))
	agent, err := helikon.NewAgent("ops", m, helikon.WithTools(ts...))
	if err != nil {
		t.Fatal(err)
	}
	rec := &askRecorder{asked: map[string]bool{}}
	rc := helikon.NewRunContext(append(opts, helikon.WithApprovalHandler(rec))...)
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	denied = map[string]bool{}
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.PermissionDenied); ok {
			denied[d.CallID] = true
		}
	}
	return rec.asked, denied
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSandboxWrite_GuardsAndDenyRulesSeeThroughSymlinks(t *testing.T) {
	cases := []struct {
		name       string
		setup      func(t *testing.T, dir string)
		path       string
		opts       []helikon.ContextOption
		wantAsked  bool
		wantDenied bool
		planted    string // a file that must not exist afterwards
	}{
		{
			name: "git hook through a link to .git is asked by the default guards",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
					t.Fatal(err)
				}
				symlink(t, ".git", filepath.Join(dir, "g"))
			},
			path:      "g/hooks/pre-commit",
			wantAsked: true,
			planted:   ".git/hooks/pre-commit",
		},
		{
			name: "DenyEdit src/** holds through a link to src",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
					t.Fatal(err)
				}
				symlink(t, "src", filepath.Join(dir, "s"))
			},
			path:       "s/main.go",
			opts:       []helikon.ContextOption{governance.WithDenyRules(governance.DenyEdit("src/**"))},
			wantDenied: true,
			planted:    "src/main.go",
		},
		{
			name: "DenyEdit holds through an absolute link inside the workspace",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
					t.Fatal(err)
				}
				symlink(t, filepath.Join(dir, "src"), filepath.Join(dir, "s"))
			},
			path:       "s/main.go",
			opts:       []helikon.ContextOption{governance.WithDenyRules(governance.DenyEdit("src/**"))},
			wantDenied: true,
			planted:    "src/main.go",
		},
		{
			name: "a symlink loop fails closed",
			setup: func(t *testing.T, dir string) {
				symlink(t, "b", filepath.Join(dir, "a"))
				symlink(t, "a", filepath.Join(dir, "b"))
			},
			path:       "a/x.sh",
			wantDenied: true,
		},
		{
			name: "a symlink leading outside the workspace fails closed",
			setup: func(t *testing.T, dir string) {
				symlink(t, t.TempDir(), filepath.Join(dir, "out"))
			},
			path:       "out/planted",
			wantDenied: true,
		},
		{
			name: "a relative link climbing out fails closed",
			setup: func(t *testing.T, dir string) {
				symlink(t, "..", filepath.Join(dir, "up"))
			},
			path:       "up/planted",
			wantDenied: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			asked, denied := runWrite(t, dir, tc.path, tc.opts...)
			if asked["w"] != tc.wantAsked {
				t.Errorf("asked = %v, want %v", asked["w"], tc.wantAsked)
			}
			if denied["w"] != (tc.wantDenied || tc.wantAsked) {
				t.Errorf("denied = %v, want %v", denied["w"], tc.wantDenied || tc.wantAsked)
			}
			if tc.planted != "" {
				if _, err := os.Stat(filepath.Join(dir, tc.planted)); !os.IsNotExist(err) {
					t.Errorf("%s was written through the link: %v", tc.planted, err)
				}
			}
		})
	}
}

func TestSandboxWrite_PlainPathsAndHarmlessLinksStillRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "docs", filepath.Join(dir, "d"))
	asked, denied := runWrite(t, dir, "d/notes.txt", governance.WithDenyRules(governance.DenyEdit("src/**")))
	if asked["w"] || denied["w"] {
		t.Fatalf("asked %v denied %v, want the write to run", asked["w"], denied["w"])
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "notes.txt")); err != nil {
		t.Errorf("the write did not land: %v", err)
	}
}
