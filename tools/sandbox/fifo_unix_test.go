//go:build unix

package sandbox

import (
	"syscall"
	"testing"
)

// makeFIFO makes a named pipe at path and reports that this system has
// them.
func makeFIFO(t *testing.T, path string) bool {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}
