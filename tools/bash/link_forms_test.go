package bash

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
)

// TestLinks_NoFormOfLinkCarriesAWritePastTheRules runs real agents whose
// Bash calls make a link in every form ln, link, cp, mv and rsync offer —
// hard and symbolic, one or many operands, -t and --target-directory,
// copies of an existing link — and then write through it, in the same
// call or a later one, or run through it a script the run wrote. With
// DenyEdit("src/**"), the default guards and the written-file guard on and
// every question refused, src/x and .git/config stay as they were, no git
// hook appears and no written script runs. Without the rules each row does
// one of those (the row is a real attack).
func TestLinks_NoFormOfLinkCarriesAWritePastTheRules(t *testing.T) {
	const hook = ".git/hooks/pre-commit"
	tests := []struct {
		name  string
		calls []string // Bash commands; "W path" writes a script that touches planted
	}{
		// Hard links: another name for the same file, which no resolver sees.
		{"ln hard link into a denied tree", []string{"ln src/x h", "echo evil > h"}},
		{"ln hard link to .git/config", []string{"ln .git/config c", "printf '[core]\\n\\tfsmonitor = touch planted\\n' >> c"}},
		{"ln -t DIR hard link", []string{"mkdir d && ln -t d .git/config", "echo evil >> d/config"}},
		{"ln --target-directory=DIR", []string{"mkdir d && ln --target-directory=d src/x", "echo evil > d/x"}},
		{"ln of many operands into a directory", []string{"mkdir d && ln src/x .git/config d/", "echo evil > d/x"}},
		{"ln -P, one operand", []string{"cd sub && ln -P ../src/x", "echo evil > sub/x"}},
		{"link", []string{"link .git/config c", "echo evil >> c"}},
		{"cp -l", []string{"cp -l src/x h", "echo evil > h"}},
		{"cp --link", []string{"cp --link .git/config c", "echo evil >> c"}},
		{"cp -al of a directory", []string{"cp -al .git g", "echo evil >> g/config"}},
		{"cp -al of a tree, same call", []string{"cp -al src s2 && echo evil > s2/x"}},
		{"hard link written in the same call", []string{"ln src/x h && echo evil > h"}},
		// Symbolic links in every form ln and cp make them.
		{"ln -s of many operands, same call", []string{"mkdir d && ln -s ../.git ../src d/ && echo x > d/.git/hooks/pre-commit"}},
		{"ln -st DIR, same call", []string{"mkdir d && ln -st d ../.git && echo x > d/.git/hooks/pre-commit"}},
		{"ln -s --target-directory=, later call", []string{"mkdir d && ln -s --target-directory=d ../src", "echo evil > d/src/x"}},
		{"ln -sr, same call", []string{"ln -sr .git g && echo x > g/hooks/pre-commit"}},
		{"cp -s, later call", []string{`cp -s "$PWD/src/x" h`, "echo evil > h"}},
		{"cp --symbolic-link, same call", []string{`cp --symbolic-link "$PWD/.git/config" c && echo evil >> c`}},
		// A copy or move of an existing link (l -> .git) is a new link.
		{"cp -P of a link, same call", []string{"cp -P l g && echo x > g/hooks/pre-commit"}},
		{"cp -r of a link, same call", []string{"cp -r l g && echo x > g/hooks/pre-commit"}},
		{"cp -a of a link, same call", []string{"cp -a l g && echo x > g/hooks/pre-commit"}},
		{"cp -d of a link, later call", []string{"cp -d l g", "echo x > g/hooks/pre-commit"}},
		{"mv of a link, same call", []string{"mv l g && echo x > g/hooks/pre-commit"}},
		{"rsync -a of a link, same call", []string{"rsync -a l g && echo x > g/hooks/pre-commit"}},
		// A written script run through a link.
		{"link to a written script", []string{"W x.sh", "link x.sh y", "bash y"}},
		{"ln -t of a written script", []string{"W x.sh", "mkdir bin && ln -t bin x.sh", "bash bin/x.sh"}},
		{"cp -l of a written script", []string{"W x.sh", "cp -l x.sh y", "sh y"}},
		{"ln -s of a written script, many operands", []string{"W x.sh", "mkdir bin && ln -s ../x.sh ../README bin/", "sh bin/x.sh"}},
		{"a hard link written, the original run", []string{"cp ci.sh keep.sh && link ci.sh h", "echo 'touch planted' > h", "bash ci.sh"}},
	}
	sh := func(id, cmd string) mock.Call {
		if p, ok := strings.CutPrefix(cmd, "W "); ok {
			b, _ := json.Marshal(map[string]string{"file_path": p, "content": "touch planted\n"})
			return mock.Call{ID: id, Name: "Write", Args: string(b)}
		}
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return mock.Call{ID: id, Name: "Bash", Args: string(b)}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ruled := range []bool{true, false} {
				sb := openSandbox(t)
				dir := sb.Dir()
				for _, d := range []string{"src", ".git/hooks", "sub"} {
					if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for _, f := range []string{"src/x", ".git/config"} {
					if err := os.WriteFile(filepath.Join(dir, f), []byte("keep"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, "ci.sh"), []byte("true\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(".git", filepath.Join(dir, "l")); err != nil {
					t.Fatal(err)
				}
				calls := make([]mock.Call, len(tt.calls))
				for i, c := range tt.calls {
					calls[i] = sh(string(rune('a'+i)), c)
				}
				agent := scriptedAgent(t, sb, calls)
				rec := &refuser{asked: map[string]string{}}
				opts := []helikon.ContextOption{helikon.WithApprovalHandler(rec)}
				if ruled {
					opts = append(opts, governance.WithDenyRules(governance.DenyEdit("src/**")), governance.WithWrittenFileGuard())
				} else {
					opts = append(opts, governance.WithoutDefaultGuards())
				}
				if _, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(opts...), helikon.UserText("go"))); err != nil {
					t.Fatal(err)
				}
				var broken []string
				for _, f := range []string{"src/x", ".git/config"} {
					if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != "keep" {
						broken = append(broken, f+" changed")
					}
				}
				for _, f := range []string{hook, "planted"} {
					if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
						broken = append(broken, f+" exists")
					}
				}
				if ruled && len(broken) > 0 {
					t.Errorf("with the rules: %s (asked %q)", strings.Join(broken, ", "), rec.asked)
				}
				if !ruled && len(broken) == 0 {
					t.Errorf("without the rules nothing happened: the row is no attack")
				}
			}
		})
	}
}
