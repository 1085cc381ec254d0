package bash

import (
	"math"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (linux/close_range.h), which
// golang.org/x/sys does not name: close_range marks the range
// close-on-exec instead of closing it.
const closeRangeCloexec = 1 << 2

// markAboveStderrCloseOnExec marks every descriptor from 3 up
// close-on-exec in one call, and reports whether the kernel could (it
// cannot before Linux 5.11).
func markAboveStderrCloseOnExec() bool {
	return unix.CloseRange(3, math.MaxUint32, closeRangeCloexec) == nil
}
