//go:build unix

package evals

import (
	"os"
	"syscall"
)

// lockFile takes f's advisory exclusive lock (flock), which every
// [AppendCase] in any process takes before it reads and appends.
func lockFile(f *os.File) (unlock func(), err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
