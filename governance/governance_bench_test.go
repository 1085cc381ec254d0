package governance

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
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
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm"), DenyBash("curl"), DenyTool("WebFetch"), DenyEdit("dist/**")))
	hooks := []helikon.Hook{helikon.HookFunc(func(context.Context, *helikon.RunContext, *helikon.HookEvent) helikon.HookDecision {
		return helikon.HookDecision{}
	})}
	output := helikon.ToolOutput{Content: json.RawMessage(`"On branch main\nnothing to commit, working tree clean\n"`)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		a := args(i)
		pre := hooks[0].OnEvent(ctx, rc, &helikon.HookEvent{Kind: helikon.PreToolUse, Tool: "Bash", CallID: "c1", Args: a})
		auth := authorize(rc, ctx, helikon.PermissionRequest{Tool: "Bash", CallID: "c1", Args: a, Effect: helikon.SideEffect})
		if pre.Action == helikon.HookDeny || !auth.allowed {
			b.Fatalf("call refused: %+v", auth)
		}
		hooks[0].OnEvent(ctx, rc, &helikon.HookEvent{Kind: helikon.PostToolUse, Tool: "Bash", CallID: "c1", Args: a, Output: output})
		if out := redactOf(rc, output); len(out.Content) != len(output.Content) {
			b.Fatal("output changed")
		}
	}
}

// BenchmarkWrittenFileGuard pairs the permission check of a Bash call
// without the written-file guard against the same check with it, on a run
// that has written 200 files, for a command that runs no file and one that
// runs a script the run did not write.
func BenchmarkWrittenFileGuard(b *testing.B) {
	ctx := context.Background()
	yes := &approver{allow: true}
	plain := helikon.NewRunContext(helikon.WithApprovalHandler(yes))
	guarded := helikon.NewRunContext(helikon.WithApprovalHandler(yes), WithWrittenFileGuard())
	for i := range 200 {
		authorize(guarded, ctx, write("src/file"+strconv.Itoa(i)+".go"))
	}
	for _, cmd := range []string{"git status && ls -la src | grep -v tmp > /dev/null", "bash scripts/ci.sh --fast"} {
		req := bash(cmd)
		b.Run(strings.Fields(cmd)[0], func(b *testing.B) {
			b.ReportAllocs()
			benchpair.Run(b, "off", func() {
				if !authorize(plain, ctx, req).allowed {
					b.Fatal("refused")
				}
			}, "guard", func() {
				if !authorize(guarded, ctx, req).allowed {
					b.Fatal("refused")
				}
			})
		})
	}
}
