package bash

import (
	"os"
	"strconv"
	"syscall"
)

// maxUnlistedFD bounds the descriptors marked when the process's own
// descriptor list cannot be read.
const maxUnlistedFD = 4096

// closeInheritedOnExec marks every descriptor of this process above
// standard error close-on-exec, so that a command gets only its standard
// streams and the descriptors the backend passes it. Go opens its own
// descriptors close-on-exec; the ones this marks are those the process
// inherited open from its parent (a supervisor's lock file, a socket), which
// a command would otherwise inherit in turn. It runs before every command,
// since a descriptor may be inherited or handed over (os.NewFile) at any
// time; a child of this process that means to pass one on must use
// exec.Cmd.ExtraFiles, which it should anyway.
//
// On Linux 5.11 and later one close_range call marks them all; elsewhere
// each listed descriptor takes its own fcntl, so a process holding many
// (a server's sockets) pays for each of them on every command.
func closeInheritedOnExec() {
	if markAboveStderrCloseOnExec() {
		return
	}
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				syscall.CloseOnExec(fd)
			}
		}
		return
	}
	// The list cannot be read: fail closed over every descriptor that
	// could plausibly be open.
	for fd := 3; fd < maxUnlistedFD; fd++ {
		syscall.CloseOnExec(fd)
	}
}
