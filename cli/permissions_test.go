package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// bank is the sidecar of testdata/bank: teller asks before pay, auditor
// sets no mode, planner is in plan mode; each pays bob 50, then answers.
// front, in default mode, hands off to planner.
var bank = filepath.Join("testdata", "bank", "agents.toml")

// TestRun_ModesAndApprovalsWithoutATerminal pins what helikon run does
// with agents.toml's permissions when stdin is not a terminal: a call
// that needs approval is not run, and says why, plan mode refuses a tool
// that is not read_only, an agent without a mode runs it, and the model
// answers after every refusal (exit 0).
func TestRun_ModesAndApprovalsWithoutATerminal(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"an asked tool is denied with the reason", "", []string{"--agent", "teller", "pay bob 50"},
			"⊘ pay not run: it needs approval, and stdin is not a terminal to ask on"},
		{"a question on stdin leaves no terminal to ask on", "pay bob 50", []string{"--agent", "teller"},
			"⊘ pay not run: it needs approval, and stdin held the question"},
		{"plan mode refuses a tool that is not read_only", "", []string{"--agent", "planner", "pay bob 50"},
			"⊘ pay not run: agent planner runs in plan mode, which admits only read-only tools"},
		{"no mode runs in default mode", "", []string{"--agent", "auditor", "pay bob 50"},
			`← pay {"paid":50,"to":"bob"}`},
		{"after a handoff the target's mode decides", "", []string{"--agent", "front", "pay bob 50"},
			"⊘ pay not run: agent planner runs in plan mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, context.Background(), tt.stdin, append([]string{"--agents", bank, "run"}, tt.args...)...)
			if r.code != 0 || r.out != "That is settled.\n" || !strings.Contains(r.errOut, tt.want) {
				t.Fatalf("code %d, stdout %q, stderr:\n%s\nwant %q in it", r.code, r.out, r.errOut, tt.want)
			}
			if refused := strings.Contains(tt.want, "not run"); refused && strings.Contains(r.errOut, "← pay") {
				t.Errorf("the refused call also shows a result:\n%s", r.errOut)
			}
		})
	}
}
