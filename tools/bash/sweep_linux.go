package bash

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// userLocks serialise, within this process, the calls of the backends
// that end a call by killing every process of their sandbox user: two
// calls under one uid at once would kill each other's processes.
var userLocks sync.Map // uint32 → *sync.Mutex

// lockUser takes the lock of uid for a call, in this process and, by an
// flock on a file of the temporary directory, against other processes
// of this host sweeping the same uid, waiting until ctx is done. It
// returns the unlock.
func lockUser(ctx context.Context, uid uint32) (func(), error) {
	v, _ := userLocks.LoadOrStore(uid, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	if err := poll(ctx, func() (bool, error) { return mu.TryLock(), nil }); err != nil {
		return nil, err
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("helikon-bash-uid-%d.lock", uid))
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		mu.Unlock()
		return nil, fmt.Errorf("bash: lock the sandbox user %d: %w", uid, err)
	}
	err = poll(ctx, func() (bool, error) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == syscall.EWOULDBLOCK {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		syscall.Close(fd)
		mu.Unlock()
		return nil, fmt.Errorf("bash: lock the sandbox user %d: %w", uid, err)
	}
	return func() {
		syscall.Close(fd) // releases the flock
		mu.Unlock()
	}, nil
}

// poll calls try until it succeeds, fails, or ctx is done.
func poll(ctx context.Context, try func() (bool, error)) error {
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		ok, err := try()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// sweepUser kills every process of the sandbox user, wherever it went:
// a process may leave its group and session but not its uid, which it
// has no capability to change. The kill(-1, SIGKILL) is made by a
// process of that uid, outside the sandbox (so no Landlock scope stands
// between it and the command's processes): the kernel sends it to every
// process the caller may signal (those of its uid) but itself and init,
// in one pass under the task list lock, so none forks past it. Twice,
// for a process that was being forked when the first ran.
func (l *local) sweepUser() {
	for range 2 {
		cmd := exec.Command(l.shell, "-c", "kill -9 -1 2>/dev/null; exit 0")
		cmd.Dir = "/"
		cmd.Env = []string{}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: l.cred}
		_ = cmd.Run()
	}
	waitUserGone(l.cred.Uid)
}

// waitUserGone waits (at most about five seconds) until no process of
// uid runs, so the call returns with its processes dead, not dying.
// Zombies run nothing and are left to their reaper.
func waitUserGone(uid uint32) {
	deadline := time.Now().Add(5 * time.Second)
	for wait := 50 * time.Microsecond; userRuns(uid) && time.Now().Before(deadline); wait = min(2*wait, 20*time.Millisecond) {
		time.Sleep(wait)
	}
}

// userRuns reports whether a process of uid that is not a zombie is in
// /proc (each entry is owned by its process's effective uid).
func userRuns(uid uint32) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != uid {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X' {
			return true
		}
	}
	return false
}
