package helikon

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// call builds a permission request for tool with args built from kv pairs.
func call(tool string, effect ToolEffect, kv ...string) PermissionRequest {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return PermissionRequest{Tool: tool, CallID: "c1", Args: b, Effect: effect}
}

func bash(cmd string) PermissionRequest    { return call("Bash", SideEffect, "command", cmd) }
func write(p string) PermissionRequest     { return call("Write", Write, "file_path", p) }
func read(p string) PermissionRequest      { return call("Read", ReadOnly, "file_path", p) }
func plainTool(n string) PermissionRequest { return call(n, SideEffect) }

type policyFunc func(PermissionRequest) PermissionDecision

func (f policyFunc) Check(_ context.Context, _ *RunContext, req PermissionRequest) PermissionDecision {
	return f(req)
}

type approver struct {
	allow bool
	asked []string
}

func (a *approver) Decide(_ context.Context, req PermissionRequest, prompt string) ApprovalOutcome {
	a.asked = append(a.asked, prompt)
	return ApprovalOutcome{Allow: a.allow}
}

func askAll(PermissionRequest) PermissionDecision {
	return PermissionDecision{Behavior: PermissionAskUser, Prompt: "ok?"}
}

func denyAll(PermissionRequest) PermissionDecision {
	return PermissionDecision{Behavior: PermissionDeny, Reason: "policy says no"}
}

func TestPermissionPipeline_EvaluatesInTheSeedsOrder(t *testing.T) {
	yes := &approver{allow: true}
	tests := []struct {
		name    string
		opts    []ContextOption
		req     PermissionRequest
		allowed bool
		asked   bool
	}{
		{"default mode with no policy is permissive", nil, plainTool("WebFetch"), true, false},
		{"deny rule overrides bypass", []ContextOption{WithPermissionMode(PermissionBypass), WithDenyRules(DenyTool("Bash"))}, bash("ls"), false, false},
		{"deny rule overrides an allow rule", []ContextOption{WithDenyRules(DenyBash("rm")), WithAllowRules(AllowTool("Bash"))}, bash("rm x"), false, false},
		{"guard rule runs under bypass", []ContextOption{WithPermissionMode(PermissionBypass)}, bash("rm -rf /"), false, true},
		{"guard rule runs before allow rules", []ContextOption{WithAllowRules(AllowBash("rm"))}, bash("rm -rf ~"), false, true},
		{"guard ask approved continues down the pipeline", []ContextOption{WithApprovalHandler(yes), WithPermissionMode(PermissionPlan)}, bash("rm -rf /"), false, true},
		{"guard ask approved then allowed", []ContextOption{WithApprovalHandler(yes)}, bash("rm -rf /"), true, true},
		{"allow rule short-circuits plan", []ContextOption{WithPermissionMode(PermissionPlan), WithAllowRules(AllowEdit("src/**"))}, write("src/main.go"), true, false},
		{"allow rule skips the policy", []ContextOption{WithPermissionPolicy(policyFunc(denyAll)), WithAllowRules(AllowTool("WebSearch"))}, plainTool("WebSearch"), true, false},
		{"dont_ask denies what no allow rule permits", []ContextOption{WithPermissionMode(PermissionDontAsk)}, plainTool("WebSearch"), false, false},
		{"dont_ask never invokes the policy", []ContextOption{WithPermissionMode(PermissionDontAsk), WithPermissionPolicy(policyFunc(func(PermissionRequest) PermissionDecision { panic("policy invoked") }))}, plainTool("X"), false, false},
		{"dont_ask permits an allow rule's call", []ContextOption{WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowTool("WebSearch"))}, plainTool("WebSearch"), true, false},
		{"bypass allows all", []ContextOption{WithPermissionMode(PermissionBypass), WithPermissionPolicy(policyFunc(denyAll))}, plainTool("X"), true, false},
		{"plan denies a side effect", []ContextOption{WithPermissionMode(PermissionPlan)}, plainTool("X"), false, false},
		{"plan admits read-only, then the policy decides", []ContextOption{WithPermissionMode(PermissionPlan), WithPermissionPolicy(policyFunc(denyAll))}, read("a.txt"), false, false},
		{"accept_edits auto-approves writes", []ContextOption{WithPermissionMode(PermissionAcceptEdits), WithPermissionPolicy(policyFunc(denyAll))}, write("a.txt"), true, false},
		{"accept_edits leaves side effects to the policy", []ContextOption{WithPermissionMode(PermissionAcceptEdits), WithPermissionPolicy(policyFunc(denyAll))}, plainTool("X"), false, false},
		{"policy ask with no handler denies", []ContextOption{WithPermissionPolicy(policyFunc(askAll))}, plainTool("X"), false, true},
		{"policy ask with a handler asks it", []ContextOption{WithPermissionPolicy(policyFunc(askAll)), WithApprovalHandler(yes)}, plainTool("X"), true, true},
		{"write breaker beats accept_edits and an allow rule", []ContextOption{WithPermissionMode(PermissionAcceptEdits), WithAllowRules(AllowEdit(".git/**"))}, write(".git/config"), false, true},
		{"without default guards", []ContextOption{WithoutDefaultGuards()}, bash("rm -rf /"), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := NewRunContext(tt.opts...)
			a := rc.authorize(context.Background(), tt.req)
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
	replace := policyFunc(func(PermissionRequest) PermissionDecision {
		return PermissionDecision{Behavior: PermissionReplace, Args: json.RawMessage(`{"command":"rm -rf /"}`)}
	})
	rc := NewRunContext(WithPermissionPolicy(replace))
	a := rc.authorize(context.Background(), bash("ls"))
	if a.allowed {
		t.Fatalf("replaced destructive args were allowed")
	}
	safe := policyFunc(func(PermissionRequest) PermissionDecision {
		return PermissionDecision{Behavior: PermissionReplace, Args: json.RawMessage(`{"command":"ls -la"}`)}
	})
	a = NewRunContext(WithPermissionPolicy(safe)).authorize(context.Background(), bash("ls"))
	if !a.allowed || string(a.args) != `{"command":"ls -la"}` {
		t.Fatalf("got %+v", a)
	}
}

func TestPermissionMode_IsTightenOnly(t *testing.T) {
	modes := []PermissionMode{PermissionDefault, PermissionAcceptEdits, PermissionPlan, PermissionBypass, PermissionDontAsk}
	for _, from := range modes {
		for _, to := range modes {
			rc, err := NewRunContext(WithPermissionMode(from)).WithPermissionMode(to)
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
			if rc.PermissionMode() != to {
				t.Errorf("%s → %s: mode %s", from, to, rc.PermissionMode())
			}
		}
	}
}

func TestPermissionMode_LooseningOptionKeepsStricterModeAndRecordsError(t *testing.T) {
	rc := NewRunContext(WithPermissionMode(PermissionDontAsk)).Derive(WithPermissionMode(PermissionDefault))
	if rc.PermissionMode() != PermissionDontAsk || !errors.Is(rc.gov.modeErr, ErrPermissionModeLoosened) {
		t.Fatalf("mode %s, err %v", rc.PermissionMode(), rc.gov.modeErr)
	}
}

func TestPermissionRules_UnreadableBashArgsFailClosed(t *testing.T) {
	req := PermissionRequest{Tool: "Bash", Args: json.RawMessage(`{"command": `)}
	a := NewRunContext(WithDenyRules(DenyBash("rm"))).authorize(context.Background(), req)
	if a.allowed {
		t.Error("a deny rule let unreadable Bash args through")
	}
	a = NewRunContext(WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowBash("ls")), WithoutDefaultGuards()).authorize(context.Background(), req)
	if a.allowed {
		t.Error("an allow rule admitted unreadable Bash args")
	}
}

func TestPermissionRules_SeeEveryCaseVariantAndDuplicateOfTheKey(t *testing.T) {
	rc := NewRunContext(WithDenyRules(DenyBash("rm")))
	for _, args := range []string{
		`{"COMMAND":"rm -rf x"}`,
		`{"command":"ls","command":"rm -rf x"}`,
		`{"comm\u0061nd":"rm x"}`,
		`{"command":"\u0072m x"}`,
	} {
		if a := rc.authorize(context.Background(), PermissionRequest{Tool: "Bash", Args: json.RawMessage(args)}); a.allowed {
			t.Errorf("%s was allowed", args)
		}
	}
}
