package governance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon"
	"iter"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// kindTool is a tool under a name no rule knows, declaring its kind.
type kindTool struct {
	name   string
	schema *jsonschema.Schema
}

func (k kindTool) Name() string                    { return k.name }
func (k kindTool) Description() string             { return "test tool" }
func (k kindTool) InputSchema() *jsonschema.Schema { return k.schema }
func (k kindTool) Call(*helikon.ToolContext, json.RawMessage) (helikon.ToolOutput, error) {
	return helikon.TextOutput("ok"), nil
}

// runCommand declares itself a shell whose command is its "cmd" argument.
type runCommand struct{ kindTool }

func (runCommand) ShellCommand(args json.RawMessage) (string, error) {
	var in struct {
		Cmd *string `json:"cmd"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", err
	}
	if in.Cmd == nil {
		return "", errors.New("no cmd argument")
	}
	return *in.Cmd, nil
}

// notes declares itself a file tool that reads "from" and writes "to".
type notes struct{ kindTool }

func (notes) FileAccess(args json.RawMessage) ([]FileAccess, error) {
	var in struct{ From, To string }
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	var out []FileAccess
	if in.From != "" {
		out = append(out, FileAccess{Path: in.From})
	}
	if in.To != "" {
		out = append(out, FileAccess{Path: in.To, Write: true})
	}
	return out, nil
}

func kindCall(t helikon.Tool, args string) helikon.PermissionRequest {
	return helikon.PermissionRequest{Tool: t.Name(), CallID: "c1", Args: json.RawMessage(args), Impl: t}
}

func TestShellTool_DeclaredShellFallsUnderEveryShellRule(t *testing.T) {
	sh := runCommand{kindTool{name: "run_command"}}
	cmd := func(c string) helikon.PermissionRequest {
		b, _ := json.Marshal(map[string]string{"cmd": c})
		return kindCall(sh, string(b))
	}
	tests := []struct {
		name  string
		rc    *helikon.RunContext
		req   helikon.PermissionRequest
		allow bool
	}{
		{"deny rule", helikon.NewRunContext(WithDenyRules(DenyBash("rm"))), cmd("echo ok && rm -rf build"), false},
		{"deny rule, other program", helikon.NewRunContext(WithDenyRules(DenyBash("rm"))), cmd("ls -la"), true},
		{"default guard", helikon.NewRunContext(), cmd("rm -rf ~"), false},
		{"default write guard", helikon.NewRunContext(), cmd("echo x > /etc/passwd"), false},
		{"allow rule under dont_ask", helikon.NewRunContext(WithAllowRules(AllowBash("ls")), WithPermissionMode(PermissionDontAsk)), cmd("ls -la"), true},
		{"allow rule does not cover rm", helikon.NewRunContext(WithAllowRules(AllowBash("ls")), WithPermissionMode(PermissionDontAsk)), cmd("ls; rm x"), false},
		{"custom command guard", helikon.NewRunContext(WithGuardRules(GuardRule{Name: "no-curl", Action: GuardDeny, Command: func(c ShellCommand) bool { return c.Program == "curl" }})), cmd("curl example.com"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := authorize(tt.rc, context.Background(), tt.req); got.allowed != tt.allow {
				t.Errorf("allowed=%v (reason %q), want %v", got.allowed, got.reason, tt.allow)
			}
		})
	}
}

func TestShellTool_UnreadableCommandFailsClosedNamingTheTool(t *testing.T) {
	sh := runCommand{kindTool{name: "run_command"}}
	for _, args := range []string{`{"other":"ls"}`, `not json`, `{"cmd":7}`} {
		a := authorize(helikon.NewRunContext(), context.Background(), kindCall(sh, args))
		if a.allowed || !strings.Contains(a.reason, "run_command") {
			t.Errorf("%s: allowed=%v reason=%q, want a denial naming run_command", args, a.allowed, a.reason)
		}
	}
	// With no rule or guard at all, nothing depends on the command.
	rc := helikon.NewRunContext(WithoutDefaultGuards())
	if !authorize(rc, context.Background(), kindCall(sh, `{}`)).allowed {
		t.Error("an unreadable call with no rule or guard installed was denied")
	}
}

func TestFileTool_DeclaredFileToolFallsUnderEveryPathRule(t *testing.T) {
	ft := notes{kindTool{name: "copy_note"}}
	tests := []struct {
		name  string
		rc    *helikon.RunContext
		args  string
		allow bool
	}{
		{"deny read matches what it reads", helikon.NewRunContext(WithDenyRules(DenyRead(".env"))), `{"from":"app/.env","to":"out.txt"}`, false},
		{"deny read ignores what it writes", helikon.NewRunContext(WithDenyRules(DenyRead("out.txt"))), `{"from":"in.txt","to":"out.txt"}`, true},
		{"deny edit matches what it writes", helikon.NewRunContext(WithDenyRules(DenyEdit("dist/**"))), `{"from":"a","to":"dist/x.js"}`, false},
		{"default guard on a system path", helikon.NewRunContext(), `{"from":"a","to":"/etc/hosts"}`, false},
		{"default guard on .git", helikon.NewRunContext(), `{"from":"a","to":"repo/.git/hooks/pre-commit"}`, false},
		{"default guard ignores reads", helikon.NewRunContext(), `{"from":"/etc/hosts","to":"x"}`, true},
		{"allow rules cover each access by kind", helikon.NewRunContext(WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowRead("src/**"), AllowEdit("out/**"))), `{"from":"src/a","to":"out/b"}`, true},
		{"allow rules must cover every access", helikon.NewRunContext(WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowRead("src/**"), AllowEdit("out/**"))), `{"from":"src/a","to":"src/b"}`, false},
		{"unreadable arguments fail closed", helikon.NewRunContext(), `[1]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := authorize(tt.rc, context.Background(), kindCall(ft, tt.args))
			if got.allowed != tt.allow {
				t.Errorf("allowed=%v (reason %q), want %v", got.allowed, got.reason, tt.allow)
			}
			if !got.allowed && tt.args == `[1]` && !strings.Contains(got.reason, "copy_note") {
				t.Errorf("reason %q does not name the tool", got.reason)
			}
		})
	}
}

func TestToolKind_BuiltinNamesStayImplicitlyDeclared(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm"), DenyRead(".env"), DenyEdit("dist/**")))
	for _, req := range []helikon.PermissionRequest{bash("rm x"), read("a/.env"), write("dist/a.js"), call("NotebookEdit", helikon.Write, "notebook_path", "/etc/x.ipynb")} {
		if !denied(rc, req) {
			t.Errorf("%s %s was allowed", req.Tool, req.Args)
		}
	}
}

func TestNewAgent_WarnsOnceAboutAShellLikeToolThatDeclaresNothing(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)

	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"script": {Type: "string"}}}
	undeclared := kindTool{name: "undeclared_runner_for_warning_test", schema: schema}
	declared := runCommand{kindTool{name: "declared_shell_for_warning_test", schema: schema}}
	byName := kindTool{name: "my_terminal_for_warning_test", schema: &jsonschema.Schema{Type: "object"}}
	plain := kindTool{name: "weather_for_warning_test", schema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}}}
	for range 2 {
		if _, err := helikon.NewAgent("a", stubModel{}, helikon.WithTools(undeclared, declared, byName, plain)); err != nil {
			t.Fatal(err)
		}
	}
	log := buf.String()
	if n := strings.Count(log, "tool=undeclared_runner_for_warning_test"); n != 1 {
		t.Errorf("undeclared shell-like tool warned %d times, want once:\n%s", n, log)
	}
	if !strings.Contains(log, "tool=my_terminal_for_warning_test") {
		t.Errorf("a tool named like a terminal was not warned about:\n%s", log)
	}
	for _, quiet := range []string{"declared_shell_for_warning_test", "weather_for_warning_test"} {
		if strings.Contains(log, quiet) {
			t.Errorf("%s was warned about:\n%s", quiet, log)
		}
	}
}

// stubModel answers nothing; agents built for construction tests never run.
type stubModel struct{}

func (stubModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Tools: true}
}
func (stubModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(func(helikon.ModelEvent, error) bool) {}
}
