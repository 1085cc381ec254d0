package bash

import (
	"math"

	"golang.org/x/sys/unix"
)

// markAboveStderrCloseOnExec marks every descriptor from 3 up
// close-on-exec in one call, and reports whether the kernel could (it
// cannot before Linux 5.11).
func markAboveStderrCloseOnExec() bool {
	return unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil
}
