//go:build unix

package mcp_test

import (
	"errors"
	"syscall"
)

// processGone reports whether pid no longer exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
