package bash

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// privileged reports whether this process holds root's uid or any
// capability a confined command would inherit or regain: effective,
// permitted, inheritable or ambient (the bounding set alone grants
// nothing under no_new_privs).
func privileged() (bool, error) {
	if os.Geteuid() == 0 || os.Getuid() == 0 {
		return true, nil
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false, fmt.Errorf("read this process's capabilities: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "CapInh", "CapPrm", "CapEff", "CapAmb":
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return false, fmt.Errorf("parse %s in /proc/self/status: %w", k, err)
			}
			if n != 0 {
				return true, nil
			}
		}
	}
	return false, sc.Err()
}

// The securebits the confining thread locks before the fork: root's uid
// confers no capability on exec (noroot), and setuid to the unprivileged
// uid clears the permitted and effective sets (keep_caps off, the fixup
// on) and no capability can be raised into the ambient set, each locked
// so the command cannot change it.
const lockedSecurebits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<3 | // SECBIT_NO_SETUID_FIXUP_LOCKED (the fixup stays on)
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED (keep_caps stays off)
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// dropCapabilities empties the calling thread's bounding, ambient and
// inheritable sets and locks the securebits, keeping only the effective
// and permitted sets the forked child needs to switch to the
// unprivileged uid, a switch that then clears them. Only this thread
// changes (capabilities are per thread), and it ends with the call.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
		return fmt.Errorf("lock the securebits: %w", err)
	}
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability this kernel knows
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read the capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear the inheritable capabilities: %w", err)
	}
	return nil
}

// prepareUser settles who a confined command runs as. An unprivileged
// process confines the command as itself. A privileged one drops
// everything: the command runs as the sandbox user with no supplementary
// group, its thread's capability sets emptied (see dropCapabilities), and
// the workspace is given to that user so it can work there. It fails,
// naming why, when it cannot.
func prepareUser(l *local, c hostConfig, dir string) error {
	priv, err := privileged()
	if err != nil {
		return fmt.Errorf("bash: os sandbox: %w", err)
	}
	if !priv {
		return nil
	}
	uid, gid := c.uid, c.gid
	if !c.userSet {
		uid, gid = DefaultSandboxUID, DefaultSandboxGID
		for _, f := range []string{"/etc/passwd", "/etc/group"} {
			if name := idName(f, uid); name != "" {
				return fmt.Errorf("bash: os sandbox: the default sandbox id %d is %q in %s; choose an unused uid and gid with WithSandboxUser", uid, name, f)
			}
		}
	}
	if uid <= 0 || gid <= 0 {
		return fmt.Errorf("bash: os sandbox: sandbox user %d:%d, want a uid and a gid above 0", uid, gid)
	}
	if err := ownTree(dir, uid, gid); err != nil {
		return err
	}
	l.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	l.confine.Drop = true
	return nil
}

// idName returns the name a passwd or group file gives id, or "".
func idName(path string, id int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 2 && f[2] == strconv.Itoa(id) {
			return f[0]
		}
	}
	return ""
}
