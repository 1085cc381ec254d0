//go:build linux

package bash

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// With a cgroup per call the shell stayed in this process's process
// group and setpgid was refused. timeout(1) makes a group of its own for
// its command and signals that group; refused one, it signalled its own,
// which held the shell: "timeout 1 sleep 5; echo after" ended the whole
// call, killed, with no output. The group held this process too, which
// only the sandbox user's uid or Landlock's signal scope kept out of the
// command's kill 0. The shell now has a group of its own, as without a
// cgroup, and only setsid is refused; the cgroup still ends every
// process.
func TestOsSandbox_TheCommandHasAProcessGroupOfItsOwn(t *testing.T) {
	b, root := osTool(t)
	escapeHelper(t, root)
	r, err := runTool(t, t.Context(), b, Args{Command: "timeout 1 sleep 5; echo after $?"})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.Stdout != "after 124\n" {
		t.Errorf("timeout 1 sleep 5: %+v, want the shell to go on and print %q", r, "after 124\n")
	}
	// In a PID namespace the command's group is named by the
	// namespace's pid: this process's group is compared without one.
	b, root = osTool(t, withoutPIDNamespace())
	escapeHelper(t, root)
	r, err = runTool(t, t.Context(), b, Args{Command: "./escape pgid"})
	if err != nil {
		t.Fatal(err)
	}
	// A helper that printed no group would pass a plain inequality.
	if pgid, err := strconv.Atoi(strings.TrimSpace(r.Stdout)); err != nil || pgid <= 1 {
		t.Errorf("./escape pgid: %+v, want a process group", r)
	} else if pgid == syscall.Getpgrp() {
		t.Errorf("the command is in this process's group %d", pgid)
	}
}
