package starlarktool

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// workerEnv carries a worker's spec to the re-executed program; its
// presence is what makes [WorkerMain] serve instead of return.
const workerEnv = "HELIKON_STARLARK_WORKER"

// hookCalled records that [WorkerMain] ran in this process, so a
// re-executed copy of the program reaches it too.
var hookCalled atomic.Bool

// ErrNoWorker is the error of [New] and [Compile] in a program whose main
// did not call [WorkerMain]: scripts run only in worker processes, so
// without the hook no script runs at all.
var ErrNoWorker = errors.New("starlarktool: script tools run in worker processes started from this program: " +
	"call starlarktool.WorkerMain() first thing in main (and in TestMain)")

// ErrUnsupportedPlatform is the error of [New] and [Compile] on a system
// other than Linux, which cannot cap a worker's memory (RLIMIT_DATA): there
// no worker starts and no script runs.
var ErrUnsupportedPlatform = errors.New("starlarktool: unsupported platform")

// WorkerMain must be called first thing in main, and in TestMain, by a
// program that uses script tools. Scripts run in worker processes that
// re-execute the program itself, under kernel caps on memory and CPU and
// a kill at the time cap, so no script can take the program down:
// WorkerMain is where such a copy turns into a worker. It then serves
// scripts and exits, never returning. In a normal start it only records
// that workers can be started and returns at once.
//
//	func main() {
//		starlarktool.WorkerMain()
//		…
//	}
func WorkerMain() {
	spec, ok := os.LookupEnv(workerEnv)
	if !ok {
		hookCalled.Store(true)
		return
	}
	if err := serveWorker(spec); err != nil {
		fmt.Fprintf(os.Stderr, "starlarktool worker: %v\n", err)
		os.Exit(3)
	}
	os.Exit(0)
}
