package bash

import (
	"github.com/paigasus/helikon/governance"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestBash_ThePermissionPipelineGovernsIt(t *testing.T) {
	sb := openSandbox(t)
	if err := os.WriteFile(filepath.Join(sb.Dir(), "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := hostTool(t, sb, nil)
	m := mock.Scripted(mock.ToolCalls(
		mock.Call{ID: "c1", Name: "Bash", Args: `{"command":"rm keep"}`},
		mock.Call{ID: "c2", Name: "Bash", Args: `{"command":"echo ok > out"}`},
	), mock.Text("done"))
	agent, err := helikon.NewAgent("ops", m, helikon.WithTools(b))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(governance.WithDenyRules(governance.DenyBash("rm")))
	res, err := helikon.Collect(agent.Run(t.Context(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	denied := map[string]bool{}
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.PermissionDenied); ok {
			denied[d.CallID] = true
		}
	}
	if !denied["c1"] || denied["c2"] {
		t.Errorf("denied = %v, want c1 only", denied)
	}
	if _, err := os.Stat(filepath.Join(sb.Dir(), "keep")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(sb.Dir(), "out")); err != nil || string(b) != "ok\n" {
		t.Errorf("the allowed command did not run: %q, %v", b, err)
	}
}
