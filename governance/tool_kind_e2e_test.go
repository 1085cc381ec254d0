package governance_test

import (
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// declaredShell is a user's shell tool under its own name and argument key,
// declaring itself with [governance.ShellTool].
type declaredShell struct {
	helikon.Tool
}

func (declaredShell) ShellCommand(args json.RawMessage) (string, error) {
	var in struct {
		Script string `json:"script"`
	}
	err := json.Unmarshal(args, &in)
	return in.Script, err
}

type scriptArgs struct {
	Script string `json:"script" jsonschema:"the script to run"`
}

func TestShellTool_TheLoopGovernsADeclaredShellByItsDeclaration(t *testing.T) {
	rec := &recorder{output: "ok"}
	inner := helikon.MustTool("run_script", "Run a script.", func(tc *helikon.ToolContext, in scriptArgs) (string, error) {
		rec.add(in.Script)
		return "ok", nil
	})
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "run_script", Args: `{"script":"cd /tmp && rm -rf ~"}`}), mock.Text("done"))
	agent, err := helikon.NewAgent("ops", m, helikon.WithTools(declaredShell{inner}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := run(t, agent, helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass)))
	if !errors.Is(err, helikon.ErrPaused) { // the guard asks; headless, the run pauses
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	if len(rec.ran) != 0 {
		t.Errorf("the declared shell ran %q past the recursive-remove guard", rec.ran)
	}
	if a := eventsOf[helikon.ApprovalRequested](res); len(a) != 1 || !strings.Contains(a[0].AskedBy, governance.GuardRecursiveRemove) {
		t.Errorf("ApprovalRequested events = %+v, want one from %s", a, governance.GuardRecursiveRemove)
	}
}
