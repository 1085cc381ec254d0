package bash

import (
	"os"
	"testing"
)

// On a kernel with close_range, one call marks a descriptor opened without
// close-on-exec, so no descriptor is listed or marked one by one.
func TestMarkAboveStderrCloseOnExec_OneCallMarksEveryDescriptor(t *testing.T) {
	fd := openNoCloexec(t, 0)
	if !markAboveStderrCloseOnExec() {
		msg := "close_range(CLOSE_RANGE_CLOEXEC) needs Linux 5.11; this kernel refused it, so commands fall back to marking each listed descriptor"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if !isCloexec(t, fd) {
		t.Fatalf("descriptor %d is not close-on-exec after close_range", fd)
	}
}
