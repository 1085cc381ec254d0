package governance

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"testing"
)

// call builds a permission request for tool with args built from kv pairs.
func call(tool string, effect helikon.ToolEffect, kv ...string) helikon.PermissionRequest {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return helikon.PermissionRequest{Tool: tool, CallID: "c1", Args: b, Effect: effect}
}

func bash(cmd string) helikon.PermissionRequest {
	return call("Bash", helikon.SideEffect, "command", cmd)
}
func write(p string) helikon.PermissionRequest     { return call("Write", helikon.Write, "file_path", p) }
func read(p string) helikon.PermissionRequest      { return call("Read", helikon.ReadOnly, "file_path", p) }
func plainTool(n string) helikon.PermissionRequest { return call(n, helikon.SideEffect) }

type policyFunc func(helikon.PermissionRequest) PermissionDecision

func (f policyFunc) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision {
	return f(req)
}

type approver struct {
	allow bool
	asked []string
}

func (a *approver) Decide(_ context.Context, req helikon.PermissionRequest, prompt string) helikon.ApprovalOutcome {
	a.asked = append(a.asked, prompt)
	return helikon.ApprovalOutcome{Allow: a.allow}
}

func askAll(helikon.PermissionRequest) PermissionDecision {
	return PermissionDecision{Behavior: PermissionAskUser, Prompt: "ok?"}
}

func denyAll(helikon.PermissionRequest) PermissionDecision {
	return PermissionDecision{Behavior: PermissionDeny, Reason: "policy says no"}
}

func TestPermissionPipeline_EvaluatesInTheSeedsOrder(t *testing.T) {
	yes := &approver{allow: true}
	tests := []struct {
		name    string
		opts    []helikon.ContextOption
		req     helikon.PermissionRequest
		allowed bool
		asked   bool
	}{
		{"default mode with no policy is permissive", nil, plainTool("WebFetch"), true, false},
		{"deny rule overrides bypass", []helikon.ContextOption{WithPermissionMode(PermissionBypass), WithDenyRules(DenyTool("Bash"))}, bash("ls"), false, false},
		{"deny rule overrides an allow rule", []helikon.ContextOption{WithDenyRules(DenyBash("rm")), WithAllowRules(AllowTool("Bash"))}, bash("rm x"), false, false},
		{"guard rule runs under bypass", []helikon.ContextOption{WithPermissionMode(PermissionBypass)}, bash("rm -rf /"), false, true},
		{"guard rule runs before allow rules", []helikon.ContextOption{WithAllowRules(AllowBash("rm"))}, bash("rm -rf ~"), false, true},
		{"guard ask approved continues down the pipeline", []helikon.ContextOption{helikon.WithApprovalHandler(yes), WithPermissionMode(PermissionPlan)}, bash("rm -rf /"), false, true},
		{"guard ask approved then allowed", []helikon.ContextOption{helikon.WithApprovalHandler(yes)}, bash("rm -rf /"), true, true},
		{"allow rule short-circuits plan", []helikon.ContextOption{WithPermissionMode(PermissionPlan), WithAllowRules(AllowEdit("src/**"))}, write("src/main.go"), true, false},
		{"allow rule skips the policy", []helikon.ContextOption{WithPermissionPolicy(policyFunc(denyAll)), WithAllowRules(AllowTool("WebSearch"))}, plainTool("WebSearch"), true, false},
		{"dont_ask denies what no allow rule permits", []helikon.ContextOption{WithPermissionMode(PermissionDontAsk)}, plainTool("WebSearch"), false, false},
		{"dont_ask never invokes the policy", []helikon.ContextOption{WithPermissionMode(PermissionDontAsk), WithPermissionPolicy(policyFunc(func(helikon.PermissionRequest) PermissionDecision { panic("policy invoked") }))}, plainTool("X"), false, false},
		{"dont_ask permits an allow rule's call", []helikon.ContextOption{WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowTool("WebSearch"))}, plainTool("WebSearch"), true, false},
		{"bypass allows all", []helikon.ContextOption{WithPermissionMode(PermissionBypass), WithPermissionPolicy(policyFunc(denyAll))}, plainTool("X"), true, false},
		{"plan denies a side effect", []helikon.ContextOption{WithPermissionMode(PermissionPlan)}, plainTool("X"), false, false},
		{"plan admits read-only, then the policy decides", []helikon.ContextOption{WithPermissionMode(PermissionPlan), WithPermissionPolicy(policyFunc(denyAll))}, read("a.txt"), false, false},
		{"accept_edits auto-approves writes", []helikon.ContextOption{WithPermissionMode(PermissionAcceptEdits), WithPermissionPolicy(policyFunc(denyAll))}, write("a.txt"), true, false},
		{"accept_edits leaves side effects to the policy", []helikon.ContextOption{WithPermissionMode(PermissionAcceptEdits), WithPermissionPolicy(policyFunc(denyAll))}, plainTool("X"), false, false},
		{"policy ask with no handler denies", []helikon.ContextOption{WithPermissionPolicy(policyFunc(askAll))}, plainTool("X"), false, true},
		{"policy ask with a handler asks it", []helikon.ContextOption{WithPermissionPolicy(policyFunc(askAll)), helikon.WithApprovalHandler(yes)}, plainTool("X"), true, true},
		{"write breaker beats accept_edits and an allow rule", []helikon.ContextOption{WithPermissionMode(PermissionAcceptEdits), WithAllowRules(AllowEdit(".git/**"))}, write(".git/config"), false, true},
		{"without default guards", []helikon.ContextOption{WithoutDefaultGuards()}, bash("rm -rf /"), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := helikon.NewRunContext(tt.opts...)
			a := authorize(rc, context.Background(), tt.req)
			if a.allowed != tt.allowed || a.asked != tt.asked {
				t.Errorf("allowed=%v asked=%v (reason %q), want allowed=%v asked=%v", a.allowed, a.asked, a.reason, tt.allowed, tt.asked)
			}
			if !a.allowed && a.reason == "" {
				t.Error("a denial has no reason")
			}
		})
	}
}

func TestPermissionPolicy_ReplacedArgsPassDenyAndGuardRulesAgain(t *testing.T) {
	replace := policyFunc(func(helikon.PermissionRequest) PermissionDecision {
		return PermissionDecision{Behavior: PermissionReplace, Args: json.RawMessage(`{"command":"rm -rf /"}`)}
	})
	rc := helikon.NewRunContext(WithPermissionPolicy(replace))
	a := authorize(rc, context.Background(), bash("ls"))
	if a.allowed {
		t.Fatalf("replaced destructive args were allowed")
	}
	safe := policyFunc(func(helikon.PermissionRequest) PermissionDecision {
		return PermissionDecision{Behavior: PermissionReplace, Args: json.RawMessage(`{"command":"ls -la"}`)}
	})
	a = authorize(helikon.NewRunContext(WithPermissionPolicy(safe)), context.Background(), bash("ls"))
	if !a.allowed || string(a.args) != `{"command":"ls -la"}` {
		t.Fatalf("got %+v", a)
	}
}

func TestPermissionMode_IsTightenOnly(t *testing.T) {
	modes := []PermissionMode{PermissionDefault, PermissionAcceptEdits, PermissionPlan, PermissionBypass, PermissionDontAsk}
	for _, from := range modes {
		for _, to := range modes {
			rc, err := ChangeMode(helikon.NewRunContext(WithPermissionMode(from)), to)
			refused := (from == PermissionBypass && to != PermissionBypass && to != PermissionDontAsk) ||
				(from == PermissionDontAsk && to != PermissionDontAsk)
			if refused != (err != nil) {
				t.Errorf("%s → %s: err = %v, want refused=%v", from, to, err, refused)
			}
			if err != nil {
				if !errors.Is(err, ErrPermissionModeLoosened) {
					t.Errorf("%s → %s: %v does not wrap ErrPermissionModeLoosened", from, to, err)
				}
				continue
			}
			if ModeOf(rc) != to {
				t.Errorf("%s → %s: mode %s", from, to, ModeOf(rc))
			}
		}
	}
}

func TestPermissionMode_LooseningOptionKeepsStricterModeAndRecordsError(t *testing.T) {
	rc := helikon.NewRunContext(WithPermissionMode(PermissionDontAsk)).Derive(WithPermissionMode(PermissionDefault))
	agent, err := helikon.NewAgent("a", mock.Scripted(mock.Text("hi")))
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("hi")))
	var ae *helikon.AgentError
	if ModeOf(rc) != PermissionDontAsk || !errors.Is(runErr, ErrPermissionModeLoosened) || !errors.As(runErr, &ae) || ae.Kind != helikon.KindConfig {
		t.Fatalf("mode %s, run error %v", ModeOf(rc), runErr)
	}
}

func TestPermissionRules_UnreadableBashArgsFailClosed(t *testing.T) {
	req := helikon.PermissionRequest{Tool: "Bash", Args: json.RawMessage(`{"command": `)}
	a := authorize(helikon.NewRunContext(WithDenyRules(DenyBash("rm"))), context.Background(), req)
	if a.allowed {
		t.Error("a deny rule let unreadable Bash args through")
	}
	a = authorize(helikon.NewRunContext(WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowBash("ls")), WithoutDefaultGuards()), context.Background(), req)
	if a.allowed {
		t.Error("an allow rule admitted unreadable Bash args")
	}
}

func TestPermissionRules_SeeEveryCaseVariantAndDuplicateOfTheKey(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")))
	for _, args := range []string{
		`{"COMMAND":"rm -rf x"}`,
		`{"command":"ls","command":"rm -rf x"}`,
		`{"comm\u0061nd":"rm x"}`,
		`{"command":"\u0072m x"}`,
	} {
		if a := authorize(rc, context.Background(), helikon.PermissionRequest{Tool: "Bash", Args: json.RawMessage(args)}); a.allowed {
			t.Errorf("%s was allowed", args)
		}
	}
}
