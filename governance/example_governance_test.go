package governance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// shellTool stands in for a real Bash tool: it echoes what it would run.
var shellTool = helikon.MustTool("Bash", "Run a shell command.",
	func(tc *helikon.ToolContext, in struct {
		Command string `json:"command" jsonschema:"the command line"`
	}) (string, error) {
		return "ran: " + in.Command, nil
	})

// runShell has the model call Bash once with cmd under rc and prints the
// governance events.
func runShell(rc *helikon.RunContext, cmds ...string) {
	var calls []mock.Call
	for i, c := range cmds {
		args, _ := json.Marshal(map[string]string{"command": c})
		calls = append(calls, mock.Call{ID: fmt.Sprint("c", i), Name: "Bash", Args: string(args)})
	}
	model := mock.Scripted(mock.ToolCalls(calls...), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", model, helikon.WithTools(shellTool))
	for ev := range agent.Run(context.Background(), rc, helikon.UserText("clean up")) {
		switch e := ev.(type) {
		case helikon.ApprovalRequested:
			fmt.Println("approval requested:", e.Tool)
		case helikon.PermissionDenied:
			fmt.Println("denied:", e.Reason)
		case helikon.RunPaused:
			for _, p := range e.State.Pending {
				fmt.Printf("paused: %s awaits a decision (%s)\n", p.Tool, p.AskedBy)
			}
		case helikon.ToolOutputItem:
			for _, p := range e.Item.Content {
				if r, ok := p.(helikon.ToolResultPart); ok && !r.IsError {
					var out string
					_ = json.Unmarshal([]byte(r.Content[0].(helikon.TextPart).Text), &out)
					fmt.Println("allowed:", out)
				}
			}
		}
	}
}

// One DenyBash rule catches the program in every sub-command, behind
// wrappers, nested shells and command substitution, even under Bypass.
func ExampleDenyBash() {
	rc := helikon.NewRunContext(
		governance.WithPermissionMode(governance.PermissionBypass),
		governance.WithDenyRules(governance.DenyBash("rm")),
	)
	runShell(rc, "echo ok && rm -rf .", "sudo rm -rf build", "bash -c 'rm -rf build'", "echo $(rm x)", "ls -la")
	// Output:
	// denied: deny rule Bash(rm)
	// denied: deny rule Bash(rm)
	// denied: deny rule Bash(rm)
	// denied: deny rule Bash(rm)
	// allowed: ran: ls -la
}

// The destructive defaults are always on. Their action is Ask, which pauses
// the run for a human decision when no ApprovalHandler is installed (see
// [helikon.Resume]); the round's other call has run and reports on resume.
func ExampleDestructiveGuards() {
	runShell(helikon.Ephemeral(), "rm -rf ~", "make > /dev/null 2>&1")
	// Output:
	// approval requested: Bash
	// paused: Bash awaits a decision (guard recursive-remove-root-or-home)
}

// A function is a permission policy through PolicyFunc. This one asks a
// human before any command that is not a plain listing and allows the
// rest; with no ApprovalHandler installed, the ask pauses the run.
func ExamplePolicyFunc() {
	policy := governance.PolicyFunc(func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
		var in struct{ Command string }
		if err := json.Unmarshal(req.Args, &in); err != nil || !strings.HasPrefix(in.Command, "ls ") {
			return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "Run " + in.Command + "?"}
		}
		return governance.PermissionDecision{Behavior: governance.PermissionAllow}
	})
	runShell(helikon.NewRunContext(governance.WithPermissionPolicy(policy)), "ls -la", "git push")
	// Output:
	// approval requested: Bash
	// paused: Bash awaits a decision (the permission policy)
}

// WithWrittenFileGuard asks before a command runs a file the run wrote:
// here a script the first call writes with a redirect and the second runs.
func ExampleWithWrittenFileGuard() {
	runShell(helikon.NewRunContext(governance.WithWrittenFileGuard()), "echo 'rm -rf ~' > tidy.sh")
	rc := helikon.NewRunContext(governance.WithWrittenFileGuard())
	runShell(rc, "echo 'rm -rf ~' > tidy.sh", "bash tidy.sh")
	// Output:
	// allowed: ran: echo 'rm -rf ~' > tidy.sh
	// approval requested: Bash
	// paused: Bash awaits a decision (guard run-written-file)
}

// Under DontAsk only allow rules let a call through. AllowBash rules form
// one list: every sub-command must run a listed program.
func ExampleAllowBash() {
	rc := helikon.NewRunContext(
		governance.WithPermissionMode(governance.PermissionDontAsk),
		governance.WithAllowRules(governance.AllowBash("git"), governance.AllowBash("ls")),
	)
	runShell(rc, "git status && ls", "git status && curl example.com")
	// Output:
	// denied: permission mode dont_ask admits only calls an allow rule permits
	// allowed: ran: git status && ls
}

// A GuardRule sees each sub-command resolved: program, arguments and the
// wrappers it ran under.
func ExampleGuardRule() {
	noForcePush := governance.GuardRule{
		Name:   "no-force-push",
		Action: governance.GuardDeny,
		Command: func(c governance.ShellCommand) bool {
			return c.Program == "git" && len(c.Args) > 0 && c.Args[0] == "push" &&
				strings.Contains(strings.Join(c.Args, " "), "--force")
		},
	}
	rc := helikon.NewRunContext(governance.WithGuardRules(noForcePush))
	runShell(rc, "cd repo && timeout 60 git push --force origin main")
	// Output:
	// denied: guard no-force-push
}

// Mode is tighten-only: Bypass may only become DontAsk, and DontAsk is
// terminal.
func ExampleChangeMode() {
	rc := helikon.NewRunContext(governance.WithPermissionMode(governance.PermissionBypass))
	if _, err := governance.ChangeMode(rc, governance.PermissionDefault); err != nil {
		fmt.Println(err)
	}
	locked, _ := governance.ChangeMode(rc, governance.PermissionDontAsk)
	fmt.Println(governance.ModeOf(locked))
	// Output:
	// governance: permission mode may only tighten: bypass cannot become default
	// dont_ask
}

// Tool output is scrubbed before the model sees it: values of secret-named
// keys, and known secret values.
func ExampleWithExtraSecrets() {
	leaky := helikon.MustTool("env", "Print the environment.",
		func(tc *helikon.ToolContext, _ struct{}) (string, error) {
			return "STRIPE_API_KEY=sk_live_abc123\nDB_URL=postgres://app:pg-pass-9f8e7d@db/app", nil
		})
	model := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "env", Args: `{}`}), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", model, helikon.WithTools(leaky))
	rc := helikon.NewRunContext(governance.WithExtraSecrets("pg-pass-9f8e7d"))
	for ev := range agent.Run(context.Background(), rc, helikon.UserText("show env")) {
		if e, ok := ev.(helikon.ToolOutputItem); ok {
			fmt.Println(e.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text)
		}
	}
	// Output:
	// "STRIPE_API_KEY=***\nDB_URL=postgres://app:***@db/app"
}

// An input guardrail runs beside the first model call; a tripwire cancels
// that call and fails the run.
func ExampleWithInputGuardrails() {
	noKeys := helikon.GuardrailFunc(func(_ context.Context, _ *helikon.RunContext, in helikon.GuardrailInput) (*helikon.Tripwire, error) {
		if strings.Contains(in.Text, "BEGIN PRIVATE KEY") {
			return &helikon.Tripwire{Kind: helikon.GuardrailInputPolicy, Info: "private key"}, nil
		}
		return nil, nil
	})
	agent, _ := helikon.NewAgent("assistant", mock.Scripted(mock.Text("sure")), helikon.WithInputGuardrails(noKeys))
	_, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("-----BEGIN PRIVATE KEY-----")))
	fmt.Println(err)
	// Output:
	// guardrail (agent assistant): input_policy
}

// Hooks observe and steer: here an audit hook logs each tool call and a
// PreToolUse hook rewrites arguments before permissions judge them.
func ExampleHookFunc() {
	audit := helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
		if ev.Kind == helikon.PreToolUse {
			fmt.Printf("about to call %s with %s\n", ev.Tool, ev.Args)
			return helikon.HookDecision{Action: helikon.HookReplaceInput, Value: json.RawMessage(`{"command":"ls -la"}`)}
		}
		return helikon.HookDecision{}
	})
	runShell(helikon.NewRunContext(helikon.WithHookRegistry(helikon.NewHookRegistry(audit))), "ls")
	// Output:
	// about to call Bash with {"command":"ls"}
	// allowed: ran: ls -la
}
