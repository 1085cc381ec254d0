package starlarktool

import (
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const cappedChildEnv = "STARLARKTOOL_TEST_CAPPED_CHILD"

// inCappedChild runs body in a child process (this test binary, running
// only t's test) under the smallest memory cap, and fails t when the
// child fails or dies: a worker's runtime that runs out of address space
// kills its process.
func inCappedChild(t *testing.T, body func(t *testing.T)) {
	if os.Getenv(cappedChildEnv) == t.Name() {
		if err := capProcess(workerSpec{MemoryBytes: minMemoryBytes, CPUSeconds: 60}); err != nil {
			t.Fatal(err)
		}
		body(t)
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), cappedChildEnv+"="+t.Name(), "GOMAXPROCS=2")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the capped child failed (%v):\n%.2000s", err, out)
	}
}

// onThreads runs f on n goroutines at once, each locked to a thread of
// its own, and returns once all have run it.
func onThreads(n int, f func()) {
	var started, ended sync.WaitGroup
	release := make(chan struct{})
	for range n {
		started.Add(1)
		ended.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f()
			started.Done()
			<-release
		})
	}
	started.Wait()
	close(release)
	ended.Wait()
}

// TestCapProcess_AWorkerUnderItsCapsCanStartFortyEightThreads pins room
// for the threads a worker's runtime starts after its caps are set: a
// child under the smallest memory cap holds 48 goroutines on threads of
// their own at once. With the C library's 8 MiB thread stacks a loaded
// machine's worker ran out of address space at its eighth or tenth
// thread, and a heap that could not grow at 4 MiB in use read as the
// memory cap.
func TestCapProcess_AWorkerUnderItsCapsCanStartFortyEightThreads(t *testing.T) {
	inCappedChild(t, func(t *testing.T) {
		if got := defaultThreadStack(); got != 0 && got != threadStack {
			t.Fatalf("the default thread stack is %d bytes after the caps, want %d", got, threadStack)
		}
		onThreads(48, func() {})
	})
}

// TestCapProcess_ThreadsThatCallCDoNotTakeTheHeapsAddressSpace pins the C
// library's malloc to one arena in a capped worker: glibc gives each
// thread that first calls malloc an arena of its own, 64 MiB of address
// space, which under the worker's cap left no room for the Go heap to
// grow (a worker capped at 64 MiB died out of memory at 20 MiB of heap).
// The child calls into C (os/user's cgo lookup) from eight fresh threads,
// then holds 40 MiB of heap.
func TestCapProcess_ThreadsThatCallCDoNotTakeTheHeapsAddressSpace(t *testing.T) {
	inCappedChild(t, func(t *testing.T) {
		onThreads(8, func() {
			if _, err := user.LookupId("0"); err != nil {
				t.Error(err)
			}
		})
		heap := make([]byte, 40<<20)
		for i := range heap {
			heap[i] = byte(i)
		}
		runtime.KeepAlive(heap)
	})
}
