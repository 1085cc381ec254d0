package governance

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
)

// TestDenyBash_HoldsWhereAnotherProgramRunsTheCommand pins the programs
// that run the command their operands name without being a shell: the ELF
// dynamic loader runs /bin/rm (even a copy without the execute bit) and
// toybox runs its applets, so a deny rule on rm still denies; GNU parallel
// and at build or read the command at run time, so the call is asked about
// (fail closed), never allowed on the words alone.
func TestDenyBash_HoldsWhereAnotherProgramRunsTheCommand(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		cmd    string
		denied bool // else asked
	}{
		{"/lib64/ld-linux-x86-64.so.2 /bin/rm -rf ~", true},
		{"/lib/ld-linux-aarch64.so.1 --argv0 ls /bin/rm -rf ~", true},
		{"/lib/ld-musl-x86_64.so.1 /bin/rm -rf ~", true},
		{"/lib64/ld64.so.2 /bin/rm x", true},
		{"ld.so /bin/rm x", true},
		{"toybox rm -rf ~", true},
		{"/lib64/ld-linux-x86-64.so.2 --preload ./evil.so /bin/ls", false},
		{"parallel ::: 'rm -rf ~'", false},
		{"parallel rm ::: -rf", false},
		{"sem rm -rf ~", false},
		{"at now <<< 'rm -rf ~'", false},
		{"batch -f job.sh", false},
	} {
		rc := helikon.NewRunContext(helikon.WithApprovalHandler(&approver{allow: false}), WithDenyRules(DenyBash("rm")))
		a := authorize(rc, ctx, bash(tt.cmd))
		if a.allowed {
			t.Errorf("%s: allowed, want %s", tt.cmd, map[bool]string{true: "denied", false: "asked"}[tt.denied])
			continue
		}
		if tt.denied && (a.asked || a.reason != "deny rule Bash(rm)") {
			t.Errorf("%s: asked=%v reason %q, want denied by the rule", tt.cmd, a.asked, a.reason)
		}
		if !tt.denied && !a.asked {
			t.Errorf("%s: not asked (%s), want asked", tt.cmd, a.reason)
		}
	}
}

// TestWrittenFileGuard_AsksBeforeTheDynamicLoaderRunsAWrittenFile pins that
// a written file run through ld.so (which needs no execute bit) asks.
func TestWrittenFileGuard_AsksBeforeTheDynamicLoaderRunsAWrittenFile(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithWrittenFileGuard(), helikon.WithApprovalHandler(&approver{allow: true}))
	authorize(rc, ctx, bash("cp /tmp/payload prog"))
	if a := authorize(rc, ctx, bash("/lib64/ld-linux-x86-64.so.2 ./prog")); !a.asked || a.who != "guard "+GuardRunWrittenFile {
		t.Fatalf("asked=%v by %q, want asked by the guard", a.asked, a.who)
	}
}
