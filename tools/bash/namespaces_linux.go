package bash

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// callNamespaces are the namespaces the thread that starts a confined
// shell unshares, so the shell is the first process of a PID namespace
// (every process of the call is in it, sees only its call's processes,
// and dies with the shell), and has an IPC namespace (System V objects
// and POSIX message queues of its own, gone with the call) and a UTS one
// (its host name is a copy).
const callNamespaces = unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS

// unshareNamespaces moves the calling thread into new IPC and UTS
// namespaces and makes its next child the first process of a new PID
// namespace. Only this thread changes; it starts one child and ends.
func unshareNamespaces() error {
	if err := unix.Unshare(callNamespaces); err != nil {
		return fmt.Errorf("%w: unshare: %w", ErrNoPIDNamespace, err)
	}
	return nil
}

// checkPidfdFirst has the os package make its once-per-process check of
// pidfds, which forks a child that exits at once, on an ordinary thread.
// Made first on a thread that has unshared its PID namespace, that child
// would be the namespace's first process, and its exit would leave the
// namespace refusing the shell's fork (ENOMEM).
var checkPidfdFirst = sync.OnceFunc(func() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Release()
	}
})
