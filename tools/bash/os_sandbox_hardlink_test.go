//go:build linux

package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hard link planted in the workspace beforehand to a file outside is
// refused when the backend is built (Landlock grants by path, so it
// would open the file); links between files inside are fine, and a
// command cannot make one to a file outside itself.
func TestOsSandbox_HardLinksToFilesOutsideAreRefused(t *testing.T) {
	if err := kernelSupport(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb := openSandbox(t)
	searchable(t, sb.Dir())
	if err := os.MkdirAll(filepath.Join(sb.Dir(), "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(sb.Dir(), "a", "b", "innocent")
	if err := os.Link(outside, planted); err != nil {
		t.Skipf("cannot make a hard link from the temporary directory into the workspace here: %v", err)
	}
	_, err := NewOsSandboxBackend(sb)
	if err == nil || !strings.Contains(err.Error(), planted) || !strings.Contains(err.Error(), "hard link") {
		t.Fatalf("err = %v, want one naming %s", err, planted)
	}
	// Two names inside for one file are no way out.
	if err := os.Remove(planted); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sb.Dir(), "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(sb.Dir(), "x"), filepath.Join(sb.Dir(), "a", "y")); err != nil {
		t.Fatal(err)
	}
	be, err := NewOsSandboxBackend(sb)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{outside, "/etc/passwd"} {
		r, err := be.Run(t.Context(), Request{Command: "ln " + target + " planted && cat planted"})
		if err != nil || r.ExitCode == 0 || strings.Contains(r.Stdout, "s3cret") {
			t.Errorf("ln %s: %+v, %v; want it refused", target, r, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "s3cret" {
		t.Errorf("the file outside changed: %q", b)
	}
}
