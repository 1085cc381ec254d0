package cli

import (
	"context"
	"github.com/paigasus/helikon/governance"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
)

// TestGate_RefusesACallWhoseCallerItCannotTell pins the gate's fail-closed
// side: a call no PreToolUse hook announced, or announced for an agent the
// sidecar does not declare, is denied, and an announcement serves one
// check only.
func TestGate_RefusesACallWhoseCallerItCannotTell(t *testing.T) {
	f, err := sidecar.Load("testdata/bank/agents.toml")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{f: f, unset: "default", callers: map[string]string{}}
	req := helikon.PermissionRequest{Tool: "pay", CallID: "c1"}
	check := func() governance.PermissionBehavior { return g.Check(context.Background(), nil, req).Behavior }
	if b := check(); b != governance.PermissionDeny {
		t.Fatalf("an unannounced call: %v, want deny", b)
	}
	g.OnEvent(context.Background(), nil, &helikon.HookEvent{Kind: helikon.PreToolUse, Agent: "stranger", CallID: "c1"})
	if b := check(); b != governance.PermissionDeny {
		t.Fatalf("a call by an undeclared agent: %v, want deny", b)
	}
	g.OnEvent(context.Background(), nil, &helikon.HookEvent{Kind: helikon.PreToolUse, Agent: "auditor", CallID: "c1"})
	if b := check(); b != governance.PermissionAllow {
		t.Fatalf("auditor's call: %v, want allow", b)
	}
	if b := check(); b != governance.PermissionDeny {
		t.Fatalf("the same call id again without an announcement: %v, want deny", b)
	}
}
