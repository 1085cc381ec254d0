package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
)

// writeAtomic replaces the file at p (cleaned) with data: it writes a
// temporary file beside it, syncs it and renames it over p, so a reader
// sees the old content or the new, never a torn file. Parent directories
// are created inside the root. An existing file keeps its mode.
func (s *Sandbox) writeAtomic(tool, p string, data []byte) error {
	if p == "." {
		return failed(tool, p, "is the sandbox root")
	}
	mode := fs.FileMode(0o644)
	switch fi, err := s.root.Lstat(p); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// Renaming over the link would replace the link, not write where
		// it points; follow it only while it stays inside.
		if _, err := s.root.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s.fail(tool, p, err)
		}
		return denied(tool, p, "is a symlink; write to the file it points to")
	case err == nil:
		if err := s.checkRegular(tool, p, fi); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return s.fail(tool, p, err)
	}
	dir := path.Dir(p)
	if dir != "." {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			return s.fail(tool, dir, err)
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, "."+path.Base(p)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return s.fail(tool, p, err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = s.root.Rename(tmp, p)
	}
	if werr != nil {
		_ = s.root.Remove(tmp)
		return s.fail(tool, p, werr)
	}
	return nil
}
