//go:build !linux

package bash

// waitExited cannot wait without reaping here; the caller waits with
// exec.Cmd.Wait instead.
func waitExited(int) bool { return false }
