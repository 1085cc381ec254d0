package bash

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkHardLinks refuses a workspace holding a hard link to a file
// outside it. Landlock grants access by path, so a second name for an
// outside file, planted in the workspace beforehand, would give a
// command read and write access to it (the file tools refuse such files
// already). A regular file with more links than the walk finds inside
// the workspace has a name outside.
func checkHardLinks(dir string) error {
	type inode struct{ dev, ino uint64 }
	type seen struct {
		path        string
		nlink, here uint64
	}
	files := map[inode]*seen{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Nlink <= 1 {
			return nil
		}
		k := inode{uint64(st.Dev), st.Ino}
		if files[k] == nil {
			files[k] = &seen{path: path, nlink: uint64(st.Nlink)}
		}
		files[k].here++
		return nil
	})
	if err != nil {
		return fmt.Errorf("bash: os sandbox: check the workspace for hard links: %w", err)
	}
	for _, f := range files {
		if f.here < f.nlink {
			return fmt.Errorf("bash: os sandbox: %s has %d hard links and only %d inside the workspace: a name outside would give a command read and write access to that file; remove the link or copy the file", f.path, f.nlink, f.here)
		}
	}
	return nil
}

// ownTree makes uid:gid the owner of dir and everything in it (symlinks
// themselves, not their targets), so the unprivileged command can work
// on files that were there before it. checkHardLinks has run first: no
// file in the tree has a name outside, whose owner this would change.
//
// The walk and each chown go through an os.Root of dir, not by path: a
// command of another backend on this workspace may swap a directory for
// a symlink to one outside between the walk listing a file and its
// chown, and a chown by path follows a symlink in any component but the
// last. Through the root that chown fails, and so does construction.
func ownTree(dir string, uid, gid int) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("bash: os sandbox: give the workspace to uid %d: %w", uid, err)
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid && int(st.Gid) == gid {
			return nil
		}
		if ownTreeVisit != nil {
			ownTreeVisit(filepath.Join(dir, path))
		}
		return root.Lchown(path, uid, gid)
	})
	if err != nil {
		return fmt.Errorf("bash: os sandbox: give the workspace to uid %d: %w", uid, err)
	}
	return nil
}

// ownTreeVisit, when set (by a test), is called with each path ownTree is
// about to give away, after its walk listed it: where a concurrent
// command would swap a directory for a symlink.
var ownTreeVisit func(path string)
