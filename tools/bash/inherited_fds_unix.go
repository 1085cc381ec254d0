//go:build unix

package bash

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// maxSweptFD caps the descriptors marked one by one where the process's
// descriptors cannot be listed: the soft RLIMIT_NOFILE can be a million,
// and marking each costs a system call.
const maxSweptFD = 1 << 16

// fdListDir lists every open descriptor of the process where the system
// has such a directory. FreeBSD's /dev/fd lists only 0–2 unless fdescfs is
// mounted, so it is not trusted there.
var fdListDir = map[string]string{"linux": "/proc/self/fd", "darwin": "/dev/fd"}[runtime.GOOS]

var (
	// noCloseRange records that the kernel refused close_range (before
	// Linux 5.11), so that it is not asked again on every command.
	noCloseRange atomic.Bool
	// markOnce marks the descriptors one by one, once per process.
	markOnce sync.Once
)

// closeInheritedOnExec marks every descriptor of this process above
// standard error close-on-exec, so that a command gets only its standard
// streams and the descriptors the backend passes it. Go opens its own
// descriptors close-on-exec; the ones this marks are those the process
// inherited open from its parent (a supervisor's lock file, a socket),
// which a command would otherwise inherit in turn. The marks are the
// process's, not the command's: a program that passes an inherited
// descriptor on to a child of its own must name it in exec.Cmd.ExtraFiles,
// which it should anyway.
//
// On Linux 5.11 and later one close_range call before each command marks
// them all, including any opened since without close-on-exec (by cgo
// code, say). Elsewhere descriptors are marked one by one, listed or, when
// they cannot be listed, every one below the soft RLIMIT_NOFILE (at most
// [maxSweptFD]); inherited descriptors arrive with the process, so that is
// done once.
func closeInheritedOnExec() {
	if !noCloseRange.Load() {
		if markAboveStderrCloseOnExec() {
			return
		}
		noCloseRange.Store(true)
	}
	markOnce.Do(func() {
		if fdListDir == "" || !markListed(fdListDir) {
			markUpTo(fdLimit())
		}
	})
}

// markListed marks the descriptors above standard error that dir lists,
// and reports whether dir could be read.
func markListed(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return true
}

// markUpTo marks every descriptor from 3 below n.
func markUpTo(n int) {
	for fd := 3; fd < n; fd++ {
		syscall.CloseOnExec(fd)
	}
}

// fdLimit returns the bound below which every descriptor of the process
// lies: the soft RLIMIT_NOFILE (the Go runtime raises it to the hard limit
// at start, so an inherited descriptor is below it too), capped at
// [maxSweptFD].
func fdLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > maxSweptFD {
		return maxSweptFD
	}
	return int(rl.Cur)
}
