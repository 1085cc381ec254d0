//go:build !linux

package starlarktool

import (
	"fmt"
	"runtime"
	"time"
)

// capProcess fails closed: only Linux enforces RLIMIT_DATA, so elsewhere
// no worker starts and no script runs.
func capProcess(workerSpec) error {
	return fmt.Errorf("script tools need Linux to cap a worker's memory; %s does not enforce RLIMIT_DATA", runtime.GOOS)
}

func exitOnCPUCap() {}

func armCPU(time.Duration, uint64) bool { return false }

func cpuTime() time.Duration { return 0 }
