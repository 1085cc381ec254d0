//go:build linux

package bash

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Construction gives the workspace to the sandbox user while commands of
// another backend on the same workspace may run. One that swaps a
// directory for a symlink to a directory outside, between the walk
// listing a file and its chown, must not have root give the file of the
// same name outside away: the sandbox user may chmod a file it owns,
// which Landlock does not govern.
func TestOwnTree_ADirectorySwappedForASymlinkDoesNotLeadTheChownOutside(t *testing.T) {
	rootOnly(t)
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.WriteFile(filepath.Join(dir, "victim"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	swapped := false
	ownTreeVisit = func(path string) {
		if swapped || filepath.Base(path) != "victim" {
			return
		}
		swapped = true
		if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.old")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
			t.Error(err)
		}
	}
	defer func() { ownTreeVisit = nil }()
	err := ownTree(ws, DefaultSandboxUID, DefaultSandboxGID)
	if !swapped {
		t.Fatal("the walk never reached sub/victim")
	}
	fi, serr := os.Lstat(filepath.Join(outside, "victim"))
	if serr != nil {
		t.Fatal(serr)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || st.Gid != 0 {
		t.Fatalf("the file outside is now %d:%d (ownTree: %v)", st.Uid, st.Gid, err)
	}
	if err == nil {
		t.Error("ownTree succeeded on a workspace that changed under it, want an error")
	}
}
