//go:build unix

package bash

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openNoCloexec opens a file without close-on-exec, as an inherited
// descriptor is, at descriptor at when at is positive.
func openNoCloexec(t *testing.T, at int) int {
	t.Helper()
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "inherited"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if at > 0 {
		if err := unix.Dup2(fd, at); err != nil {
			t.Fatal(err)
		}
		syscall.Close(fd)
		fd = at
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return fd
}

func isCloexec(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.FD_CLOEXEC != 0
}

// The fallbacks mark what they cover, a descriptor far above the first
// few thousand included.
func TestCloseOnExecFallbacks_MarkWhatTheyCover(t *testing.T) {
	high := min(fdLimit()-1, 5000)
	if high < 100 {
		t.Skipf("RLIMIT_NOFILE is %d; no room for a high descriptor", fdLimit())
	}
	t.Run("sweep to the limit", func(t *testing.T) {
		fd := openNoCloexec(t, high)
		markUpTo(fdLimit())
		if !isCloexec(t, fd) {
			t.Fatalf("descriptor %d (limit %d) not marked by the sweep", fd, fdLimit())
		}
	})
	t.Run("listing", func(t *testing.T) {
		if fdListDir == "" {
			t.Skip("no descriptor listing on " + runtime.GOOS + "; the sweep covers it")
		}
		fd := openNoCloexec(t, high)
		if !markListed(fdListDir) {
			t.Fatalf("%s could not be read", fdListDir)
		}
		if !isCloexec(t, fd) {
			t.Fatalf("descriptor %d not marked from %s", fd, fdListDir)
		}
	})
	t.Run("an unreadable listing", func(t *testing.T) {
		if markListed(filepath.Join(t.TempDir(), "missing")) {
			t.Fatal("markListed of a missing directory reported success")
		}
	})
}
