package sandbox

import (
	"io/fs"
	"os"
)

// openRegular opens the file at p (already cleaned) for reading and checks
// that it is a regular file with a single link. The open does not block on
// a FIFO, and the checks are made on the open descriptor, so a file
// swapped after a stat cannot slip through.
func (s *Sandbox) openRegular(tool, p string) (*os.File, fs.FileInfo, error) {
	f, err := s.root.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, s.fail(tool, p, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, s.fail(tool, p, err)
	}
	if err := s.checkRegular(tool, p, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkRegular refuses directories, devices, FIFOs and sockets, and files
// with more than one hard link: a second link may be a name for a file
// outside the root, and os.Root cannot tell.
func (s *Sandbox) checkRegular(tool, p string, fi fs.FileInfo) error {
	if fi.IsDir() {
		return failed(tool, p, "is a directory")
	}
	if !fi.Mode().IsRegular() {
		return denied(tool, p, "not a regular file ("+fi.Mode().Type().String()+")")
	}
	if n := linkCount(fi); n > 1 {
		return denied(tool, p, "the file has more than one hard link, and another may be outside the sandbox")
	}
	return nil
}
