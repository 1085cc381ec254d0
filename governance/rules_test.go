package governance

import (
	"context"
	"github.com/paigasus/helikon"
	"strings"
	"testing"
)

func denied(rc *helikon.RunContext, req helikon.PermissionRequest) bool {
	return !authorize(rc, context.Background(), req).allowed
}

func TestDenyBash_CatchesEverySubCommandForm(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")), WithoutDefaultGuards())
	tests := []struct {
		cmd  string
		deny bool
	}{
		{"echo ok && rm -rf .", true},
		{"sudo rm -rf /", true},
		{"bash -c 'rm -rf /'", true},
		{"echo $(rm -rf /)", true},
		{"echo `rm -rf /`", true},
		{"timeout 5 nice -n 1 nohup stdbuf -oL env A=1 command rm x", true},
		{"doas /bin/rm x", true},
		{"ls | xargs rm", true},
		{"find . -exec rm {} +", true},
		{"eval 'rm x'", true},
		{"'r'm x", true},
		{"ls -la && git status", false},
		{"echo rm", false},
		{"grep -r rm .", false},
		{"firmware-update", false},
	}
	for _, tt := range tests {
		if got := denied(rc, bash(tt.cmd)); got != tt.deny {
			t.Errorf("%q: denied=%v, want %v", tt.cmd, got, tt.deny)
		}
	}
}

// TestDenyBash_CopyOfTheProgramUnderAnotherName pins that a copy or link
// of the denied program, by its path or by a path a lookup of it gives, is
// denied; looking at the program or copying other files is not.
func TestDenyBash_CopyOfTheProgramUnderAnotherName(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")), WithoutDefaultGuards())
	for _, tt := range []struct {
		cmd  string
		deny bool
	}{
		{"cp /usr/bin/rm x; ./x -rf build", true},
		{"ln -s /bin/rm x", true},
		{"dd if=/bin/rm of=x", true},
		{"cat /usr/bin/rm > x", true},
		{`cp "$(command -v rm)" x`, true},
		{`install "$(which rm)" x`, true},
		{"ls -l /usr/bin/rm", false},
		{"command -v rm", false},
		{"cp a.txt b.txt", false},
		{`cp "$SRC" x`, false},
		{"cp ./rm x", true}, // a path to a file named rm
	} {
		if got := denied(rc, bash(tt.cmd)); got != tt.deny {
			t.Errorf("%q: denied = %v, want %v", tt.cmd, got, tt.deny)
		}
	}
}

func TestDenyBash_WrapperIsAProgramToo(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("sudo")))
	if !denied(rc, bash("sudo ls")) || denied(rc, bash("ls")) {
		t.Error("DenyBash(sudo) does not match exactly the calls run under sudo")
	}
}

func TestDenyRule_ByToolAndByPath(t *testing.T) {
	rc := helikon.NewRunContext(WithDenyRules(DenyTool("WebFetch"), DenyRead(".env"), DenyEdit("dist/**")), WithoutDefaultGuards())
	tests := []struct {
		name string
		req  helikon.PermissionRequest
		deny bool
	}{
		{"tool by exact name", plainTool("WebFetch"), true},
		{"another tool", plainTool("WebSearch"), false},
		{".env at the root", read(".env"), true},
		{".env at any depth", read("config/prod/.env"), true},
		{".env through ..", read("src/../.env"), true},
		{".ENV case-insensitively", read("CONFIG/.ENV"), true},
		{".env via path key", call("Read", helikon.ReadOnly, "path", "a/.env"), true},
		{"environment.env is another name", read("environment.env"), false},
		{"read rule does not govern edits", write(".env.local"), false},
		{"edit under dist", write("dist/app.js"), true},
		{"edit deep under dist", call("Edit", helikon.Write, "file_path", "dist/a/b/c.js"), true},
		{"dist is anchored", write("src/dist/app.js"), false},
		{"absolute path fails closed", write("/home/u/proj/dist/app.js"), true},
		{"climbing out fails closed", write("../proj/dist/app.js"), true},
		{"edit elsewhere", write("src/app.js"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := denied(rc, tt.req); got != tt.deny {
				t.Errorf("denied=%v, want %v", got, tt.deny)
			}
		})
	}
}

func TestAllowRule_UnderDontAskIsTheOnlyWayIn(t *testing.T) {
	rc := helikon.NewRunContext(WithPermissionMode(PermissionDontAsk), WithAllowRules(
		AllowTool("WebSearch"), AllowEdit("src/**"), AllowRead("*.md"), AllowBash("git"), AllowBash("ls")))
	tests := []struct {
		name  string
		req   helikon.PermissionRequest
		allow bool
	}{
		{"tool by name", plainTool("WebSearch"), true},
		{"other tool", plainTool("WebFetch"), false},
		{"edit under src", write("src/a/b.go"), true},
		{"edit under src, case-insensitive", write("SRC/A.go"), true},
		{"edit escaping src with ..", write("src/../secrets/x"), false},
		{"edit elsewhere", write("docs/a.md"), false},
		{"absolute path never matches an anchored allow", write("/src/a.go"), false},
		{"read markdown at any depth", read("docs/guide/intro.md"), true},
		{"every sub-command allowed", bash("git status && ls -la"), true},
		{"mixed compound fails closed", bash("git status && rm x"), false},
		{"substitution counts as a sub-command", bash("git log $(rm x)"), false},
		{"sudo needs its own allow", bash("sudo git status"), false},
		{"timeout is transparent", bash("timeout 5 git fetch"), true},
		{"dynamic program never allowed", bash("$GIT status"), false},
		{"unparsable command fails closed", bash("git status '"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := !denied(rc, tt.req); got != tt.allow {
				t.Errorf("allowed=%v, want %v", got, tt.allow)
			}
		})
	}
}

func TestPathGlob_GitignoreStyle(t *testing.T) {
	tests := []struct {
		pattern, path string
		allowSide     bool // matched as an allow rule (fail open) rather than deny
		want          bool
	}{
		{".env", ".env", false, true},
		{".env", "a/b/.env", false, true},
		{"*.pem", "keys/server.PEM", false, true},
		{"*.pem", "keys/server.pem.bak", false, false},
		{"secrets", "secrets/db/key", false, true},
		{"src/**", "src/a.go", true, true},
		{"src/**", "src", true, false},
		{"/src/**", "src/a.go", true, true},
		{"src/*.go", "src/a.go", true, true},
		{"src/*.go", "src/sub/a.go", true, false},
		{"**/test/*.go", "a/b/test/x.go", true, true},
		{"src/**/gen", "src/x/y/gen/file", true, true},
		{"src/[ab].go", "src/b.go", true, true},
		{"src/[!ab].go", "src/b.go", true, false},
		{"src/[a", "src/[a", true, true},
		{"src/?.go", "src/é.go", true, true},
		{"src/**", "./src/./x/../y.go", true, true},
		{"src/**", "src/../../etc/passwd", true, false},
		{"//etc/**", "/etc/passwd", true, true},
		{"//etc/**", "etc/passwd", true, false},
		{"", "anything", false, false},
	}
	for _, tt := range tests {
		if got := compileGlob(tt.pattern).match(tt.path, !tt.allowSide); got != tt.want {
			t.Errorf("%q vs %q: %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestDestructiveGuards_SeedClasses(t *testing.T) {
	rc := helikon.NewRunContext() // headless: Ask resolves to Deny
	tests := []struct {
		name string
		req  helikon.PermissionRequest
		deny bool
	}{
		{"rm -rf /", bash("rm -rf /"), true},
		{"rm -rf ~", bash("rm -rf ~"), true},
		{"rm -fr ~/", bash("rm -fr ~/"), true},
		{"rm -r -f $HOME", bash(`rm -r -f "$HOME"`), true},
		{"rm -rf /*", bash("rm -rf /*"), true},
		{"rm --recursive //", bash("rm --recursive //"), true},
		{"rm --no-preserve-root", bash("rm -rf --no-preserve-root /tmp/x"), true},
		{"sudo rm -rf /", bash("sudo rm -rf /"), true},
		{"hidden in a substitution", bash("echo $(rm -rf /)"), true},
		{"hidden in bash -c", bash(`bash -c "rm -rf ~"`), true},
		{"rm -rf of a project dir", bash("rm -rf ./build"), false},
		{"rm without -r on /tmp", bash("rm /tmp/x"), false},
		{"redirect into /etc", bash("echo x > /etc/hosts"), true},
		{"append into /usr", bash("echo x >> /usr/local/bin/tool"), true},
		{"tee into /etc", bash("echo x | sudo tee /etc/passwd"), true},
		{"cp into /bin", bash("cp ./tool /bin/"), true},
		{"dd onto a disk", bash("dd if=img of=/dev/sda"), true},
		{"> /dev/null exempt", bash("make > /dev/null 2>&1"), false},
		{"/dev/stderr exempt", bash("echo x > /dev/stderr"), false},
		{"reading /etc is fine", bash("cat /etc/hosts"), false},
		{"cp out of /etc is fine", bash("cp /etc/hosts ./hosts"), false},
		{"Write tool into /etc", write("/etc/cron.d/job"), true},
		{"write to .git", write(".git/config"), true},
		{"write into .ssh", write("/home/u/.SSH/authorized_keys"), true},
		{"write .env", write("app/.ENV"), true},
		{"write .env.local", write(".env.local"), true},
		{"name.git is not .git", write("name.git/x"), false},
		{".gitignore is fine", write(".gitignore"), false},
		{"environment.env is fine", write("environment.env"), false},
		{"bash redirect into .env", bash("echo K=v >> .env"), true},
		{"read of .env is not a write", read(".env"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := denied(rc, tt.req); got != tt.deny {
				t.Errorf("denied=%v, want %v", got, tt.deny)
			}
		})
	}
}

func TestGuardRule_CustomDenyAndAsk(t *testing.T) {
	push := GuardRule{Name: "no-force-push", Action: GuardDeny, Command: func(c ShellCommand) bool {
		if c.Program != "git" || len(c.Args) == 0 || c.Args[0] != "push" {
			return false
		}
		for _, a := range c.Args {
			if a == "--force" || a == "-f" {
				return true
			}
		}
		return false
	}}
	yes := &approver{allow: true}
	rc := helikon.NewRunContext(WithGuardRules(push), helikon.WithApprovalHandler(yes), WithPermissionMode(PermissionBypass))
	if !denied(rc, bash("cd repo && git push --force")) {
		t.Error("custom deny guard did not fire under bypass")
	}
	if denied(rc, bash("git push")) {
		t.Error("custom guard fired on a plain push")
	}
	// A Deny wins over an Ask from the defaults, without asking.
	yes.asked = nil
	if !denied(rc, bash("rm -rf / ; git push -f")) || len(yes.asked) != 0 {
		t.Errorf("deny did not win over ask (asked %q)", yes.asked)
	}
}

// TestDenyBash_CommandsInAGrammarOfTheirOwnAsk pins that programs which
// run a command written in their own grammar — a terminal multiplexer, a
// detacher, run-parts, socat's EXEC: — ask rather than run under
// DenyBash("rm"), and that wrappers which run their operands are seen
// through.
func TestDenyBash_CommandsInAGrammarOfTheirOwnAsk(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		cmd    string
		denied bool // denied by the rule; else asked
	}{
		{"tmux new -d 'rm -rf x'", false},
		{"tmux new-session -d rm -rf x", false},
		{"tmux send-keys -t s 'rm x' Enter", false},
		{"screen -dm rm -rf x", false},
		{"dtach -n /tmp/s rm x", false},
		{"abduco -n s rm x", false},
		{"run-parts .", false},
		{"entr -s 'rm x' < list", false},
		{"capsh -- -c 'rm x'", false},
		{"daemonize /bin/rm x", false},
		{"start-stop-daemon -S -x /bin/rm -- x", false},
		{"scl enable x 'rm x'", false},
		{"proot rm x", false},
		{"bwrap --bind / / rm x", false},
		{"rlwrap rm x", false},
		{"socat - EXEC:'rm x'", false},
		{"chronic rm x", true},
		{"ifne rm x", true},
		{"faketime now rm x", true},
		{"dbus-launch rm x", true},
	} {
		a := authorize(helikon.NewRunContext(WithDenyRules(DenyBash("rm")), WithoutDefaultGuards()), ctx, bash(tt.cmd))
		switch {
		case a.allowed:
			t.Errorf("%s: allowed", tt.cmd)
		case tt.denied && (a.asked || !strings.Contains(a.reason, "Bash(rm)")):
			t.Errorf("%s: asked=%v reason %q, want denied by Bash(rm)", tt.cmd, a.asked, a.reason)
		case !tt.denied && !a.asked:
			t.Errorf("%s: refused without a question (%s), want asked", tt.cmd, a.reason)
		}
	}
}
