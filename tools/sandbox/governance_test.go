package sandbox_test

import (
	"context"
	"github.com/paigasus/helikon/governance"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/tools/sandbox"
)

func TestSandboxTools_TheDenyRulesGovernThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("KEY=secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
		mock.Call{ID: "c1", Name: "Read", Args: `{"file_path":"config/../.env"}`},
		mock.Call{ID: "c2", Name: "Write", Args: `{"file_path":"dist/app.js","content":"x"}`},
		mock.Call{ID: "c3", Name: "Write", Args: `{"file_path":"notes.txt","content":"ok"}`},
	), mock.Text("done"))
	agent, err := helikon.NewAgent("ops", m, helikon.WithTools(ts...))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(governance.WithDenyRules(governance.DenyRead(".env"), governance.DenyEdit("dist/**")))
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	denied := map[string]bool{}
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.PermissionDenied); ok {
			denied[d.CallID] = true
		}
	}
	if !denied["c1"] || !denied["c2"] || denied["c3"] {
		t.Errorf("denied calls = %v, want c1 (DenyRead .env) and c2 (DenyEdit dist/**) only", denied)
	}
	if _, err := os.Stat(filepath.Join(dir, "dist")); !os.IsNotExist(err) {
		t.Errorf("the denied Write ran: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "ok" {
		t.Errorf("the allowed Write did not run: %q, %v", b, err)
	}
}
