package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeA2A_ASecondSidecarHandsOffToAServedAgent serves the sample with
// --a2a, then runs a second sidecar whose front agent hands off to the
// served budgeting agent, declared there as a2a = "…": the answer comes
// from the first process's agent and its tool.
func TestServeA2A_ASecondSidecarHandsOffToAServedAgent(t *testing.T) {
	dir := sampleDir(t)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- run(t, ctx, "", "--agents", filepath.Join(dir, "agents.toml"), "serve", "--ui=false", "--a2a", "--addr", addr)
	}()
	defer func() {
		cancel()
		if r := <-done; r.code != 0 || !strings.Contains(r.errOut, "A2A agent budgeting at http://"+addr+"/a2a/budgeting/") {
			t.Errorf("serve exited %d: %s", r.code, r.errOut)
		}
	}()
	card := fmt.Sprintf("http://%s/a2a/budgeting/.well-known/agent-card.json", addr)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(card)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("card: %d", resp.StatusCode)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v", err)
		}
	}

	other := t.TempDir()
	write(t, filepath.Join(other, "front.json"), `{"default": [[
		{"type": "tool_call_delta", "call_id": "h1", "name": "transfer_to_books", "args_delta": "{}"},
		{"type": "finish", "reason": "tool_calls"}]]}`)
	write(t, filepath.Join(other, "agents.toml"), fmt.Sprintf(`
[agents.front]
instructions = "Hand budgeting questions to books."
model        = { provider = "mock", script = "front.json" }
handoffs     = ["books"]

[agents.books]
description = "The budgeting agent of another process"
a2a         = "http://%s/a2a/budgeting/"
`, addr))
	r := run(t, context.Background(), "", "--agents", filepath.Join(other, "agents.toml"), "run", "--agent", "front", question)
	if r.code != 0 || !strings.Contains(r.out, "In January you spent 2098") {
		t.Fatalf("run exited %d\nout: %s\nerr: %s", r.code, r.out, r.errOut)
	}
}

func TestRunA2A_AnUnreachableRemoteFailsAtStartNamingIt(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "agents.toml"), fmt.Sprintf(`
[agents.books]
a2a = "http://%s/"
`, freeAddr(t)))
	r := run(t, context.Background(), "", "--agents", filepath.Join(dir, "agents.toml"), "run", "--agent", "books", "hi")
	if r.code == 0 || !strings.Contains(r.errOut, "agents.books.a2a") {
		t.Errorf("exit %d, stderr %q: want a failure naming agents.books.a2a", r.code, r.errOut)
	}
}
