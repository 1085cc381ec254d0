package starlarktool

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const threadsChildEnv = "STARLARKTOOL_TEST_THREADS_CHILD"

// TestCapProcess_AWorkerUnderItsCapsCanStartFortyEightThreads pins room
// for the threads a worker's runtime starts after its caps are set: a
// child under the smallest memory cap holds 48 goroutines on threads of
// their own at once. With the C library's 8 MiB thread stacks a loaded
// machine's worker ran out of address space at its eighth or tenth
// thread, and a heap that could not grow at 4 MiB in use read as the
// memory cap.
func TestCapProcess_AWorkerUnderItsCapsCanStartFortyEightThreads(t *testing.T) {
	if os.Getenv(threadsChildEnv) != "" {
		if err := capProcess(workerSpec{MemoryBytes: minMemoryBytes, CPUSeconds: 60}); err != nil {
			t.Fatal(err)
		}
		if got := defaultThreadStack(); got != 0 && got != threadStack {
			t.Fatalf("the default thread stack is %d bytes after the caps, want %d", got, threadStack)
		}
		var started, ended sync.WaitGroup
		release := make(chan struct{})
		for range 48 {
			started.Add(1)
			ended.Go(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				started.Done()
				<-release
			})
		}
		started.Wait()
		close(release)
		ended.Wait()
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCapProcess_AWorkerUnderItsCapsCanStartFortyEightThreads$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), threadsChildEnv+"=1", "GOMAXPROCS=2")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the capped child failed (%v):\n%.2000s", err, out)
	}
}
