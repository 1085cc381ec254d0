//go:build unix

package helikon

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system:
// unlike wall time, it does not count the time spent waiting for a core
// on a loaded machine.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
