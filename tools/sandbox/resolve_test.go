package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolve_TheOneCallAnswerAgreesWithTheWalk pins that the kernel's
// one-call answer (openat2 refusing links) gives what walking the path a
// component at a time gives, on plain paths, missing ones, links at every
// place, dangling links, loops and a file used as a directory.
func TestResolve_TheOneCallAnswerAgreesWithTheWalk(t *testing.T) {
	f := newFixture(t)
	defer f.sb.Close()
	dir := f.sb.Dir()
	for _, d := range []string{"src/pkg", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "src/pkg/a.go"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"s": "src", "src/pkg/up": "..", "g": ".git", "dangling": ".git/hooks/pre-commit", "loop": "loop", "out": "../outside", "abs": dir + "/src"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{".", "src", "src/pkg/a.go", "src/pkg/new.go", "new/dir/f", "s/pkg/a.go", "src/pkg/up/s",
		"g/hooks/pre-commit", "dangling", "loop/x", "out/x", "abs/pkg/a.go", "src/pkg/a.go/x"} {
		want, wantErr := f.sb.walkLinks(p, false)
		got, err := f.sb.resolve(p)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("resolve(%q) = %q, %v; the walk gives %q, %v", p, got, err, want, wantErr)
		}
	}
	if f.sb.dirf != nil && !noOpenat2.Load() && !f.sb.noLinks("src/pkg/a.go") {
		t.Error("the one-call answer was not used for a path without links")
	}
}
