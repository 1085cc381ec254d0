//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the child in a process group of its own, so that
// closing the connection also ends what the child started (npx starts node).
// A caller that set SysProcAttr keeps its settings.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
}

// killProcessGroup kills whatever is left of the child's process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
