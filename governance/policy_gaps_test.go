package governance

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
)

// TestAcceptEdits_WithoutPolicyAsksBeforeAToolThatIsNotAnEdit pins that
// only the default mode is permissive without a policy: accept-edits
// admits edits (and reads) by itself, and a Bash call that writes outside
// the workspace is put to the approver, not run.
func TestAcceptEdits_WithoutPolicyAsksBeforeAToolThatIsNotAnEdit(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithPermissionMode(PermissionAcceptEdits))
	a := authorize(rc, ctx, bash("echo x > ../outside/planted"))
	if a.allowed || !a.asked || !a.deferred {
		t.Fatalf("accept_edits without a policy: allowed=%v asked=%v deferred=%v (%s), want it asked and paused", a.allowed, a.asked, a.deferred, a.reason)
	}
	if a := authorize(rc, ctx, write("src/main.go")); !a.allowed || a.asked {
		t.Errorf("an edit under accept_edits: allowed=%v asked=%v, want allowed without asking", a.allowed, a.asked)
	}
	if a := authorize(rc, ctx, read("src/main.go")); !a.allowed || a.asked {
		t.Errorf("a read under accept_edits: allowed=%v asked=%v, want allowed without asking", a.allowed, a.asked)
	}
	if a := authorize(helikon.NewRunContext(), ctx, bash("echo x > ../outside/planted")); !a.allowed {
		t.Errorf("the default mode without a policy refused: %s", a.reason)
	}
}

// bashWithFiles is a tool named Bash that declares the files it writes but
// not its command line.
type bashWithFiles struct{ kindTool }

func (bashWithFiles) FileAccess(json.RawMessage) ([]FileAccess, error) {
	return []FileAccess{{Path: "out.log", Write: true}}, nil
}

// TestToolKind_ABashThatDeclaresFilesStillFallsUnderTheShellRules pins that
// declaring one kind does not drop what the tool's built-in name implies of
// the other: a tool named Bash that reports the files it writes still has
// its "command" read by the shell rules and guards.
func TestToolKind_ABashThatDeclaresFilesStillFallsUnderTheShellRules(t *testing.T) {
	ctx := context.Background()
	tool := bashWithFiles{kindTool{name: "Bash"}}
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")))
	if a := authorize(rc, ctx, kindCall(tool, `{"command":"rm -rf victim"}`)); a.allowed {
		t.Fatal("DenyBash(rm) let rm -rf victim through a Bash tool that declares FileTool")
	}
	if a := authorize(helikon.NewRunContext(), ctx, kindCall(tool, `{"command":"rm -rf ~"}`)); a.allowed {
		t.Fatal("the default guards let rm -rf ~ through a Bash tool that declares FileTool")
	}
	if a := authorize(rc, ctx, kindCall(tool, `{"command":"ls"}`)); !a.allowed {
		t.Fatalf("ls refused: %s", a.reason)
	}
	rc = helikon.NewRunContext(WithDenyRules(DenyEdit("out.log")))
	if a := authorize(rc, ctx, kindCall(tool, `{"command":"ls"}`)); a.allowed {
		t.Fatal("DenyEdit(out.log) let through a call that declares writing out.log")
	}
}

// TestModes_AShellCallIsNeverAnEditOrARead pins that the modes judge a
// shell call by what a command line may do, not by the effect its tool
// declares: a Bash tool declared Write is not admitted by accept_edits
// (echo x > ../outside/planted ran), and one declared ReadOnly is not
// admitted by plan (rm -rf victim ran).
func TestModes_AShellCallIsNeverAnEditOrARead(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		mode   PermissionMode
		effect helikon.ToolEffect
	}{
		{PermissionAcceptEdits, helikon.Write},
		{PermissionAcceptEdits, helikon.ReadOnly},
		{PermissionPlan, helikon.ReadOnly},
	} {
		const cmd = "echo x > ../outside/planted; rm -rf victim"
		req := bash(cmd)
		req.Effect = tt.effect
		if a := authorize(helikon.NewRunContext(WithPermissionMode(tt.mode)), ctx, req); a.allowed {
			t.Errorf("mode %v admitted a Bash call whose tool is declared %v", tt.mode, tt.effect)
		}
		// A declared shell tool, under any name.
		req.Impl, req.Tool, req.Args = runCommand{kindTool{name: "run"}}, "run", json.RawMessage(`{"cmd":"`+cmd+`"}`)
		if a := authorize(helikon.NewRunContext(WithPermissionMode(tt.mode)), ctx, req); a.allowed {
			t.Errorf("mode %v admitted a declared shell tool declared %v", tt.mode, tt.effect)
		}
	}
}
