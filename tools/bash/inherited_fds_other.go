//go:build !linux

package bash

// markAboveStderrCloseOnExec reports that this system has no single call
// for it; the descriptors are marked one by one.
func markAboveStderrCloseOnExec() bool { return false }
