package bash

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// On a kernel with close_range, one call marks a descriptor opened without
// close-on-exec, so no descriptor is listed or marked one by one.
func TestMarkAboveStderrCloseOnExec_OneCallMarksEveryDescriptor(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "inherited"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if !markAboveStderrCloseOnExec() {
		msg := "close_range(CLOSE_RANGE_CLOEXEC) needs Linux 5.11; this kernel refused it, so commands fall back to marking each listed descriptor"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("descriptor %d has flags %#x after close_range, want FD_CLOEXEC", fd, flags)
	}
}
