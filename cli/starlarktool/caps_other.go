//go:build !linux

package starlarktool

import (
	"fmt"
	"runtime"
	"time"
)

// platformErr fails closed: only Linux enforces RLIMIT_DATA, so elsewhere
// no worker starts and no script runs.
func platformErr() error {
	return fmt.Errorf("%w: script tools need Linux to cap a worker's memory; %s does not enforce RLIMIT_DATA", ErrUnsupportedPlatform, runtime.GOOS)
}

// capProcess fails as platformErr does, in a worker started anyway.
func capProcess(workerSpec) error { return platformErr() }

func exitOnCPUCap() {}

func armCPU(time.Duration, uint64) bool { return false }

func cpuTime() time.Duration { return 0 }
