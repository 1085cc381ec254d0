//go:build unix

package bash

import (
	"os/exec"
	"syscall"
)

// credential is the user a confined shell runs as.
type credential = syscall.Credential

// processSupport reports why this system cannot run a local backend's
// calls: here it can.
func processSupport() error { return nil }

// startInGroup makes cmd's shell start in a process group of its own, as
// cred when it is set.
func startInGroup(cmd *exec.Cmd, cred *credential) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

// killProcess sends SIGKILL to the process pid.
func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// killGroup sends SIGKILL to every process of the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
