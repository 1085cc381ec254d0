package helikon

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
)

// BenchmarkToolCallGovernance is the full governance pipeline for one
// Bash-shaped call that passes every layer: PreToolUse hooks, deny rules,
// the default guards, allow rules, mode, policy, PostToolUse hooks and
// redaction, with a repeated command (the matcher's cache hits).
func BenchmarkToolCallGovernance(b *testing.B) {
	args := json.RawMessage(`{"command":"git status && ls -la src | grep -v tmp > /dev/null"}`)
	benchGovernance(b, func(int) json.RawMessage { return args })
}

// BenchmarkToolCallGovernanceColdParse is the same with a command never seen
// before on every call, so the shell parser runs each time.
func BenchmarkToolCallGovernanceColdParse(b *testing.B) {
	benchGovernance(b, func(i int) json.RawMessage {
		return json.RawMessage(`{"command":"git status && ls -la src` + strconv.Itoa(i) + ` | grep -v tmp > /dev/null"}`)
	})
}

func benchGovernance(b *testing.B, args func(int) json.RawMessage) {
	ctx := context.Background()
	rc := NewRunContext(WithDenyRules(DenyBash("rm"), DenyBash("curl"), DenyTool("WebFetch"), DenyEdit("dist/**")))
	hooks := []Hook{HookFunc(func(context.Context, *RunContext, *HookEvent) HookDecision { return HookDecision{} })}
	output := ToolOutput{Content: json.RawMessage(`"On branch main\nnothing to commit, working tree clean\n"`)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		a := args(i)
		pre := fireHooks(ctx, rc, hooks, &HookEvent{Kind: PreToolUse, Tool: "Bash", CallID: "c1", Args: a})
		auth := rc.authorize(ctx, PermissionRequest{Tool: "Bash", CallID: "c1", Args: a, Effect: SideEffect})
		if pre.denied || !auth.allowed {
			b.Fatalf("call refused: %+v", auth)
		}
		fireHooks(ctx, rc, hooks, &HookEvent{Kind: PostToolUse, Tool: "Bash", CallID: "c1", Args: a, Output: output})
		if out := rc.redact(output); len(out.Content) != len(output.Content) {
			b.Fatal("output changed")
		}
	}
}
