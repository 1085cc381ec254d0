//go:build !unix

package bash

import (
	"fmt"
	"os/exec"
	"runtime"
)

// credential stands in for syscall.Credential, which this system lacks.
type credential struct{ Uid, Gid uint32 }

// processSupport fails: a local backend ends a call by killing its process
// group, and this system has none. Construction stops here, so nothing
// below runs on this system.
func processSupport() error {
	return fmt.Errorf("%w: the host and OS sandbox backends end a call's processes through Unix process groups, which %s has not", ErrUnsupportedPlatform, runtime.GOOS)
}

func startInGroup(*exec.Cmd, *credential) {}

func killProcess(int) {}

func killGroup(int) {}

// closeInheritedOnExec has nothing to do where no local backend runs.
func closeInheritedOnExec() {}
