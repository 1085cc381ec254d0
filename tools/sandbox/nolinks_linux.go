package sandbox

import (
	"errors"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel (or a seccomp filter) refuses openat2,
// so later checks go straight to the walk.
var noOpenat2 atomic.Bool

// noLinks reports whether rel, a cleaned path inside the root, has no
// symlink among the components that exist, so it resolves to itself. One
// openat2 with RESOLVE_NO_SYMLINKS answers it: the kernel walks the path
// once, and stops with ELOOP at the first link or ENOENT at the first
// missing component (those after it are kept as written, as the walk keeps
// them). Anything else — a link, an error, no openat2 — reports false, and
// the caller walks the path a component at a time.
func (s *Sandbox) noLinks(rel string) bool {
	if s.dirf == nil || noOpenat2.Load() {
		return false
	}
	conn, err := s.dirf.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	conn.Control(func(dir uintptr) {
		for range 3 {
			fd, err := unix.Openat2(int(dir), rel, &how)
			switch {
			case err == nil:
				unix.Close(fd)
				ok = true
			case errors.Is(err, unix.ENOENT):
				ok = true
			case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
				continue
			case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
				// No openat2, or a seccomp filter refusing it: a
				// lookup's own refusal is EACCES.
				noOpenat2.Store(true)
			}
			return
		}
	})
	return ok
}

// openDirHandle opens the root's directory for noLinks.
func openDirHandle(root *os.Root) *os.File {
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	return f
}
