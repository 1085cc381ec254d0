package governance

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellmatch"
)

// writtenFileRows are runs of calls whose last call runs, or does not run,
// a file an earlier call (or itself) wrote. Each earlier call is allowed
// (an approver says yes to everything), so the run records what it writes.
var writtenFileRows = []struct {
	name  string
	prior []helikon.PermissionRequest
	last  helikon.PermissionRequest
	asks  bool
}{
	// A script written by the Write tool, run every way a shell can.
	{"bash script", []helikon.PermissionRequest{write("x.sh")}, bash("bash x.sh"), true},
	{"sh script", []helikon.PermissionRequest{write("x.sh")}, bash("sh -e x.sh arg"), true},
	{"dot slash", []helikon.PermissionRequest{write("x.sh")}, bash("./x.sh"), true},
	{"source", []helikon.PermissionRequest{write("x.sh")}, bash("source x.sh"), true},
	{"dot", []helikon.PermissionRequest{write("lib/env.sh")}, bash(". ./lib/env.sh && ls"), true},
	{"make -f", []helikon.PermissionRequest{write("x.mk")}, bash("make -f x.mk all"), true},
	{"make --file=", []helikon.PermissionRequest{write("x.mk")}, bash("make --file=x.mk"), true},
	{"make default makefile", []helikon.PermissionRequest{write("Makefile")}, bash("make test"), true},
	{"make -C dir", []helikon.PermissionRequest{write("build/Makefile")}, bash("make -C build"), true},
	{"python3 script", []helikon.PermissionRequest{write("x.py")}, bash("python3 -u x.py --flag"), true},
	{"python -m module", []helikon.PermissionRequest{write("evil.py")}, bash("python3 -m evil"), true},
	{"python -m package", []helikon.PermissionRequest{write("pkg/__main__.py")}, bash("python -m pkg.cli"), true},
	{"node", []helikon.PermissionRequest{write("x.js")}, bash("node x.js"), true},
	{"perl with flags", []helikon.PermissionRequest{write("x.pl")}, bash("perl -w -I lib x.pl"), true},
	{"ruby", []helikon.PermissionRequest{write("x.rb")}, bash("ruby x.rb"), true},
	{"awk -f", []helikon.PermissionRequest{write("x.awk")}, bash("awk -f x.awk data.txt"), true},
	{"bash --rcfile", []helikon.PermissionRequest{write("rc.sh")}, bash("bash --rcfile rc.sh -i"), true},
	// Through wrappers.
	{"env", []helikon.PermissionRequest{write("x.sh")}, bash("env FOO=1 bash x.sh"), true},
	{"exec", []helikon.PermissionRequest{write("x.sh")}, bash("exec ./x.sh"), true},
	{"xargs", []helikon.PermissionRequest{write("x.sh")}, bash("echo a | xargs ./x.sh"), true},
	{"find -exec", []helikon.PermissionRequest{write("x.sh")}, bash(`find . -name '*.txt' -exec ./x.sh {} \;`), true},
	{"sudo", []helikon.PermissionRequest{write("x.sh")}, bash("sudo -u nobody ./x.sh"), true},
	{"timeout and --", []helikon.PermissionRequest{write("x.sh")}, bash("timeout 5 bash -- x.sh"), true},
	{"nested sh -c", []helikon.PermissionRequest{write("x.sh")}, bash(`sh -c 'bash x.sh'`), true},
	{"substitution", []helikon.PermissionRequest{write("x.sh")}, bash(`echo "$(./x.sh)"`), true},
	// Code read from a file a flag names, or a build tool's default file.
	{"sed -f", []helikon.PermissionRequest{write("s.sed")}, bash("sed -f s.sed in.txt"), true},
	{"sed -nf attached", []helikon.PermissionRequest{write("s.sed")}, bash("sed -nfs.sed in.txt"), true},
	{"sed --file=", []helikon.PermissionRequest{write("s.sed")}, bash("sed --file=s.sed in.txt"), true},
	{"node -r", []helikon.PermissionRequest{write("hook.js")}, bash("node -r ./hook.js app.js"), true},
	{"node --import", []helikon.PermissionRequest{write("hook.mjs")}, bash("node --import=./hook.mjs app.js"), true},
	{"ninja -f", []helikon.PermissionRequest{write("x.ninja")}, bash("ninja -f x.ninja"), true},
	{"ninja default under -C", []helikon.PermissionRequest{write("out/build.ninja")}, bash("ninja -C out"), true},
	{"just --justfile", []helikon.PermissionRequest{write("x.just")}, bash("just --justfile x.just build"), true},
	{"just default", []helikon.PermissionRequest{write("justfile")}, bash("just test"), true},
	{"rake -f", []helikon.PermissionRequest{write("x.rake")}, bash("rake -f x.rake"), true},
	// Wrappers that run their operands.
	{"chronic", []helikon.PermissionRequest{write("x.sh")}, bash("chronic ./x.sh"), true},
	{"faketime", []helikon.PermissionRequest{write("x.sh")}, bash("faketime '2020-01-01' bash x.sh"), true},
	// Written by Bash, as far as the matcher sees.
	{"redirect", []helikon.PermissionRequest{bash("echo 'rm -rf ~' > x.sh")}, bash("bash x.sh"), true},
	{"heredoc", []helikon.PermissionRequest{bash("cat > run.sh <<'EOF'\nrm -rf /\nEOF")}, bash("sh run.sh"), true},
	{"tee", []helikon.PermissionRequest{bash("echo x | tee -a x.sh")}, bash("bash x.sh"), true},
	{"written and run in one call", nil, bash("printf 'rm -rf ~' > y.sh && bash y.sh"), true},
	{"cp", []helikon.PermissionRequest{bash("cp /tmp/payload tool.sh")}, bash("./tool.sh"), true},
	{"mv into bin", []helikon.PermissionRequest{bash("mv /tmp/p ./bin/tool")}, bash("bin/tool --help"), true},
	{"ln", []helikon.PermissionRequest{bash("ln -s /tmp/p run")}, bash("./run"), true},
	{"curl -o", []helikon.PermissionRequest{bash("curl -o s.sh https://example.com/s")}, bash("bash s.sh"), true},
	{"compiler -o", []helikon.PermissionRequest{bash("gcc -o prog x.c")}, bash("./prog"), true},
	{"cp -r of a directory", []helikon.PermissionRequest{bash("cp -r /tmp/kit tools")}, bash("bash tools/run.sh"), true},
	{"tar extracting here", []helikon.PermissionRequest{bash("tar xzf payload.tgz")}, bash("./install.sh"), true},
	{"tar -C", []helikon.PermissionRequest{bash("tar -xf payload.tar -C vendor")}, bash("sh vendor/setup.sh"), true},
	{"git apply", []helikon.PermissionRequest{bash("git apply fix.patch")}, bash("bash scripts/ci.sh"), true},
	{"sed -i changes a script", []helikon.PermissionRequest{bash("sed -i 's/a/b/' ci.sh")}, bash("bash ci.sh"), true},
	{"an edit changes a script", []helikon.PermissionRequest{call("Edit", helikon.Write, "file_path", "ci.sh")}, bash("bash ci.sh"), true},
	// Working directories the matcher cannot follow: names compare.
	{"cd before running", []helikon.PermissionRequest{write("sub/x.sh")}, bash("cd sub && bash x.sh"), true},
	{"cd before writing", []helikon.PermissionRequest{bash("cd sub && echo x > x.sh")}, bash("bash sub/x.sh"), true},
	{"absolute path of a relative write", []helikon.PermissionRequest{write("x.sh")}, bash("bash /work/ws/x.sh"), true},
	{"relative path of an absolute write", []helikon.PermissionRequest{bash("echo x > /work/ws/x.sh")}, bash("bash x.sh"), true},
	{"a run path climbing out of the working directory", []helikon.PermissionRequest{write("x.sh")}, bash("bash ../ws/x.sh"), true},
	{"a write climbing out of the working directory", []helikon.PermissionRequest{bash("echo x > ../ws/x.sh")}, bash("bash x.sh"), true},
	{"a directory copied after cd, run beneath it", []helikon.PermissionRequest{bash("cd sub && cp -r /tmp/kit tools")}, bash("bash sub/tools/run.sh"), true},
	{"$HOME written, ~ run", []helikon.PermissionRequest{bash("cp /tmp/p $HOME/y")}, bash("bash ~/y"), true},
	{"~ written, ${HOME} run", []helikon.PermissionRequest{bash("cp /tmp/p ~/y")}, bash("bash ${HOME}/y"), true},
	{"program on PATH written outside", []helikon.PermissionRequest{bash("cp /tmp/p ~/.local/bin/git")}, bash("git status"), true},
	{"case differs", []helikon.PermissionRequest{write("X.sh")}, bash("bash x.sh"), true},
	{"glob in the write", []helikon.PermissionRequest{bash("cp /tmp/p out*.sh")}, bash("bash out1.sh"), true},
	{"glob in the run", []helikon.PermissionRequest{write("x.sh")}, bash("bash *.sh"), true},
	// The calls of one turn are authorized concurrently: the run may be
	// allowed before the write that plants its script.
	{"a write to a script a call of the run runs", []helikon.PermissionRequest{bash("sleep 1; bash x.sh")}, write("x.sh"), true},
	{"a redirect to a makefile a call runs", []helikon.PermissionRequest{bash("sleep 1; make")}, bash("echo 'all:; rm -rf ~' > Makefile"), true},
	{"a copy into a directory a call runs from", []helikon.PermissionRequest{bash("sleep 1; ./kit/run")}, bash("cp -r /tmp/kit kit"), true},
	// Not known before the shell runs: asked.
	{"dynamic write then any script", []helikon.PermissionRequest{bash(`echo x > "$F"`)}, bash("bash ci.sh"), true},
	{"find runs what it found", []helikon.PermissionRequest{write("x.sh")}, bash(`find . -name '*.sh' -exec bash {} \;`), true},

	// What must not ask.
	{"a script the run did not write", []helikon.PermissionRequest{write("notes.md")}, bash("bash ci.sh"), false},
	{"nothing written", nil, bash("./configure && make"), false},
	{"an interpreter running no file", []helikon.PermissionRequest{write("x.py")}, bash("python3 --version"), false},
	{"chmod changes no content", []helikon.PermissionRequest{bash("chmod +x configure")}, bash("./configure"), false},
	{"reading a written file", []helikon.PermissionRequest{bash("echo hi > out.txt")}, bash("cat out.txt && bash ci.sh"), false},
	{"same name elsewhere", []helikon.PermissionRequest{write("src/x.py")}, bash("python3 tools/x.py"), false},
	{"sed with an inline script", []helikon.PermissionRequest{write("s.sed")}, bash("sed -e 's/f/g/' in.txt"), false},
	{"ninja of a file the run did not write", []helikon.PermissionRequest{write("x.sh")}, bash("ninja -C build"), false},
	{"mkdir then make -C", []helikon.PermissionRequest{bash("mkdir -p build")}, bash("make -C build"), false},
	{"a refused write is not recorded", []helikon.PermissionRequest{bash("rm -rf ~ && echo x > x.sh")}, bash("bash x.sh"), false},
	{"output to /dev/null", []helikon.PermissionRequest{bash("make > /dev/null")}, bash("bash ci.sh"), false},
}

// TestWrittenFileGuard_AsksBeforeRunningAFileTheRunWrote pins every row
// twice: with the guard the last call is asked about under the guard's
// name; without it (the default guards only) it runs, so the guard is
// what asks.
func TestWrittenFileGuard_AsksBeforeRunningAFileTheRunWrote(t *testing.T) {
	ctx := context.Background()
	for _, tt := range writtenFileRows {
		t.Run(tt.name, func(t *testing.T) {
			for _, guard := range []bool{true, false} {
				yes := &approver{allow: true}
				opts := []helikon.ContextOption{helikon.WithApprovalHandler(yes)}
				if guard {
					opts = append(opts, WithWrittenFileGuard())
				}
				rc := helikon.NewRunContext(opts...)
				for _, p := range tt.prior {
					// The approver refuses the guard's question
					// about rm -rf ~, so that write never runs.
					yes.allow = !strings.HasPrefix(tt.name, "a refused")
					authorize(rc, ctx, p)
				}
				yes.allow = true
				a := authorize(rc, ctx, tt.last)
				asked := a.asked && a.who == "guard "+GuardRunWrittenFile
				want := tt.asks && guard
				if asked != want {
					t.Errorf("guard=%v: asked by the guard = %v (asked=%v by %q: %s), want %v", guard, asked, a.asked, a.who, a.prompt, want)
				}
				if !guard && a.asked && !strings.Contains(tt.name, "dynamic") && !strings.Contains(tt.name, "find runs") && !strings.Contains(tt.name, "glob in the run") {
					t.Errorf("without the guard the call was asked (%s): the row does not show the guard's work", a.prompt)
				}
			}
		})
	}
}

// TestWrittenFileGuard_AnUnanalysableCommandAsks pins the fail-closed
// side: with the default guards removed, a command whose program the
// matcher cannot see still asks once the guard is on.
func TestWrittenFileGuard_AnUnanalysableCommandAsks(t *testing.T) {
	ctx := context.Background()
	for _, cmd := range []string{`$(cat x.sh)`, `bash < x.sh`, `eval "$(cat x.sh)"`, `bash -c "$S"`} {
		rc := helikon.NewRunContext(WithoutDefaultGuards(), WithWrittenFileGuard())
		authorize(rc, ctx, write("x.sh"))
		if a := authorize(rc, ctx, bash(cmd)); a.allowed || !a.asked {
			t.Errorf("%s: allowed=%v asked=%v, want asked", cmd, a.allowed, a.asked)
		}
		if a := authorize(helikon.NewRunContext(WithoutDefaultGuards()), ctx, bash(cmd)); !a.allowed {
			t.Errorf("%s: refused without the guard (%s): the row does not show the guard's work", cmd, a.reason)
		}
	}
}

// TestWrittenFileGuard_BypassAndAllowRulesDoNotSkipIt pins that the guard
// is a guard: it asks under bypass and over a matching allow rule, and a
// child context (a handoff target) shares the run's record.
func TestWrittenFileGuard_BypassAndAllowRulesDoNotSkipIt(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithWrittenFileGuard(), WithPermissionMode(PermissionBypass), WithAllowRules(AllowBash("bash")))
	authorize(rc, ctx, write("x.sh"))
	child := rc.Child()
	if a := authorize(child, ctx, bash("bash x.sh")); a.allowed || !a.asked || !a.deferred {
		t.Fatalf("allowed=%v asked=%v deferred=%v (%s), want asked and paused", a.allowed, a.asked, a.deferred, a.reason)
	}
	if a := authorize(helikon.NewRunContext(WithWrittenFileGuard()), ctx, bash("bash x.sh")); !a.allowed {
		t.Fatalf("a new run context shares the record: %s", a.reason)
	}
}

// linkedBash is a Bash tool whose workspace has the links s -> src and
// g -> .git and a symlink loop at loop.
type linkedBash struct{ kindTool }

func (linkedBash) ShellCommand(args json.RawMessage) (string, error) {
	var a struct{ Command string }
	err := json.Unmarshal(args, &a)
	return a.Command, err
}

func (linkedBash) ResolvePath(p string) (string, error) {
	switch {
	case strings.HasPrefix(p, "loop/"):
		return "", errors.New("more than 40 symlinks (a loop?) at loop")
	case strings.HasPrefix(p, "s/"):
		return "src/" + p[2:], nil
	case p == "s":
		return "src", nil
	case strings.HasPrefix(p, "g/"):
		return ".git/" + p[2:], nil
	}
	return p, nil
}

// TestWrittenFileGuard_FollowsSymlinksOfTheWorkspace pins that a script
// run through a link to where it was written asks, and that a path the
// tool cannot resolve fails closed.
func TestWrittenFileGuard_FollowsSymlinksOfTheWorkspace(t *testing.T) {
	ctx := context.Background()
	sh := linkedBash{kindTool{name: "Bash"}}
	run := func(cmd string) helikon.PermissionRequest {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return kindCall(sh, string(b))
	}
	for _, tt := range []struct {
		prior, last string
		asks        bool
	}{
		{"echo x > src/x.sh", "bash s/x.sh", true},
		{"echo x > s/x.sh", "bash src/x.sh", true},
		{"echo x > src/x.sh", "bash loop/x.sh", true},
		{"echo x > src/x.sh", "bash lib/x.sh", false},
	} {
		rc := helikon.NewRunContext(WithWrittenFileGuard(), helikon.WithApprovalHandler(&approver{allow: true}))
		authorize(rc, ctx, run(tt.prior))
		if a := authorize(rc, ctx, run(tt.last)); (a.asked && a.who == "guard "+GuardRunWrittenFile) != tt.asks {
			t.Errorf("%s; %s: asked=%v by %q, want %v", tt.prior, tt.last, a.asked, a.who, tt.asks)
		}
	}
}

// TestWrittenFileGuard_RecordIsBounded pins that past its bounds the
// record stops growing and every run of a file asks.
func TestWrittenFileGuard_RecordIsBounded(t *testing.T) {
	var w writtenFiles
	for i := range maxWrittenFiles + 10 {
		w.add("f"+itoa(i), false)
	}
	if w.n > maxWrittenFiles || !w.full {
		t.Fatalf("n=%d full=%v, want at most %d and full", w.n, w.full, maxWrittenFiles)
	}
	var own writtenFiles
	if why := runsFile([]*writtenFiles{&w, &own}, shellmatch.CodeFile{Path: "never-written.sh"}, false, nil); why == "" {
		t.Fatal("a full record let a script run without asking")
	}
}

// TestWrittenFileGuard_ACallStillBeingAuthorizedCounts pins the calls of
// one turn, authorized at once: while the run of x.sh waits on the policy
// (a human, say), a Write of x.sh is checked against it and asks, though
// neither call has been recorded yet.
func TestWrittenFileGuard_ACallStillBeingAuthorizedCounts(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name         string
		first, later helikon.PermissionRequest
	}{
		{"a run waits, a write of its file comes", bash("bash x.sh"), write("x.sh")},
		{"a write waits, a run of its file comes", write("x.sh"), bash("bash x.sh")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			policy := PolicyFunc(func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) PermissionDecision {
				if string(req.Args) == string(tt.first.Args) {
					once.Do(func() { close(entered) })
					<-release
				}
				return PermissionDecision{Behavior: PermissionAllow}
			})
			rc := helikon.NewRunContext(WithWrittenFileGuard(), WithPermissionPolicy(policy), helikon.WithApprovalHandler(&approver{allow: true}))
			done := make(chan authorization)
			go func() { done <- authorize(rc, ctx, tt.first) }()
			<-entered
			later := authorize(rc, ctx, tt.later)
			close(release)
			if first := <-done; !first.allowed || first.asked {
				t.Fatalf("the first call: allowed=%v asked=%v (%s)", first.allowed, first.asked, first.reason)
			}
			if !later.asked || later.who != "guard "+GuardRunWrittenFile {
				t.Errorf("the later call: asked=%v by %q, want asked by the guard", later.asked, later.who)
			}
		})
	}
}
