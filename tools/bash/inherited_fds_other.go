//go:build unix && !linux

package bash

// markAboveStderrCloseOnExec reports that this Unix has no single call
// for it; the descriptors are marked one by one.
func markAboveStderrCloseOnExec() bool { return false }
