package mcp_test

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processGone reports whether pid no longer runs: no process has it, or
// the one that has it exited (its object stays while a handle to it is
// open, so it is waited for, not looked up).
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}
