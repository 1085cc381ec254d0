package bash

import "golang.org/x/sys/unix"

// waitExited blocks until the child pid has exited, without reaping it,
// and reports true; false means it could not wait that way.
func waitExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}
