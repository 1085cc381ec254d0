package bash

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/tools/sandbox"
)

// refuser refuses every question and notes which calls were asked about.
type refuser struct {
	mu    sync.Mutex
	asked map[string]string
}

func (r *refuser) Decide(_ context.Context, req helikon.PermissionRequest, prompt string) helikon.ApprovalOutcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked[req.CallID] = prompt
	return helikon.ApprovalOutcome{Reason: "refused by test"}
}

// scriptedAgent is an agent on sb's file tools and Bash whose model makes
// calls, one a turn, and then answers.
func scriptedAgent(t *testing.T, sb *sandbox.Sandbox, calls []mock.Call) helikon.Agent {
	t.Helper()
	files, err := sb.Tools()
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]mock.Script, 0, len(calls)+1)
	for _, c := range calls {
		steps = append(steps, mock.ToolCalls(c))
	}
	m := mock.Scripted(append(steps, mock.Text("done"))...)
	agent, err := helikon.NewAgent("dev", m, helikon.WithTools(append(files, hostTool(t, sb, nil))...))
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// TestWrittenFileGuard_AScriptTheRunWroteDoesNotRunUnasked runs real
// agents on the sandbox tools and Bash: the model writes a script (with
// Write, or with a Bash redirect), then runs it, through a symlink where
// the row says. With the guard the run is asked and, refused, the script
// never runs; without it the script runs (the row is a real evasion).
func TestWrittenFileGuard_AScriptTheRunWroteDoesNotRunUnasked(t *testing.T) {
	const script = "touch planted\n"
	write := func(id, p string) mock.Call {
		b, _ := json.Marshal(map[string]string{"file_path": p, "content": script})
		return mock.Call{ID: id, Name: "Write", Args: string(b)}
	}
	sh := func(id, cmd string) mock.Call {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return mock.Call{ID: id, Name: "Bash", Args: string(b)}
	}
	tests := []struct {
		name  string
		setup func(dir string) error
		calls []mock.Call
	}{
		{"Write then bash", nil, []mock.Call{write("w", "x.sh"), sh("run", "bash x.sh")}},
		{"Write then source under env", nil, []mock.Call{write("w", "lib/x.sh"), sh("run", "env A=1 bash -c 'source lib/x.sh'")}},
		{"redirect then ./x", nil, []mock.Call{sh("w", "printf 'touch planted' > x.sh && chmod +x x.sh"), sh("run", "./x.sh")}},
		{"Write through a link, run by the target", func(dir string) error {
			if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
				return err
			}
			return os.Symlink("src", filepath.Join(dir, "s"))
		}, []mock.Call{write("w", "s/x.sh"), sh("run", "sh src/x.sh")}},
		{"Write by the target, run through a link made later", func(dir string) error {
			return os.Mkdir(filepath.Join(dir, "src"), 0o755)
		}, []mock.Call{write("w", "src/x.sh"), sh("ln", "ln -s src s"), sh("run", "sh s/x.sh")}},
		{"Write then make -f", nil, []mock.Call{
			{ID: "w", Name: "Write", Args: `{"file_path":"x.mk","content":"all:\n\ttouch planted\n"}`}, sh("run", "make -s -f x.mk")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, guard := range []bool{true, false} {
				sb := openSandbox(t)
				if tt.setup != nil {
					if err := tt.setup(sb.Dir()); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.MkdirAll(filepath.Join(sb.Dir(), "lib"), 0o755); err != nil {
					t.Fatal(err)
				}
				agent := scriptedAgent(t, sb, tt.calls)
				rec := &refuser{asked: map[string]string{}}
				opts := []helikon.ContextOption{helikon.WithApprovalHandler(rec)}
				if guard {
					opts = append(opts, governance.WithWrittenFileGuard())
				}
				if _, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(opts...), helikon.UserText("go"))); err != nil {
					t.Fatal(err)
				}
				_, statErr := os.Stat(filepath.Join(sb.Dir(), "planted"))
				ran := statErr == nil
				if guard && (ran || rec.asked["run"] == "") {
					t.Errorf("with the guard: the script ran=%v, asked=%q; want asked and not run", ran, rec.asked["run"])
				}
				if !guard && (!ran || rec.asked["run"] != "") {
					t.Errorf("without the guard: the script ran=%v, asked=%q; want it run unasked (the row is no evasion)", ran, rec.asked["run"])
				}
			}
		})
	}
}

// TestWrittenFileGuard_ASymlinkLoopAsks pins that a script path the
// workspace cannot resolve is asked about once the run wrote anything.
func TestWrittenFileGuard_ASymlinkLoopAsks(t *testing.T) {
	sb := openSandbox(t)
	if err := os.Symlink("loop", filepath.Join(sb.Dir(), "loop")); err != nil {
		t.Fatal(err)
	}
	b := hostTool(t, sb, nil)
	rc := helikon.NewRunContext(governance.WithWrittenFileGuard(), helikon.WithApprovalHandler(&refuser{asked: map[string]string{}}))
	ask := denyAsker{asked: new(string)}
	if v := rc.Authorizer().Authorize(context.Background(), rc, helikon.PermissionRequest{Tool: "Bash", Args: json.RawMessage(`{"command":"echo x > a.txt"}`), Impl: b}, ask); !v.Allowed {
		t.Fatalf("the write was refused: %s", v.Reason)
	}
	v := rc.Authorizer().Authorize(context.Background(), rc, helikon.PermissionRequest{Tool: "Bash", Args: json.RawMessage(`{"command":"bash loop/x.sh"}`), Impl: b}, ask)
	if v.Allowed || *ask.asked == "" {
		t.Fatalf("bash loop/x.sh: allowed=%v asked=%q, want asked", v.Allowed, *ask.asked)
	}
}

// denyAsker answers every question no and keeps the last prompt.
type denyAsker struct{ asked *string }

func (d denyAsker) Ask(_ context.Context, _ helikon.PermissionRequest, prompt, _ string) helikon.Verdict {
	*d.asked = prompt
	return helikon.Verdict{Reason: "no"}
}
