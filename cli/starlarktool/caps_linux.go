package starlarktool

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// capProcess puts this worker under spec's kernel caps: RLIMIT_DATA at
// its data size now plus MemoryBytes (Go's address-space reservations are
// not writable, so they do not count, while RLIMIT_AS would count
// gigabytes of them), RLIMIT_CPU at its lifetime CPU cap, no core files,
// and the Go runtime's own memory and stack limits inside those.
func capProcess(spec workerSpec) error {
	if spec.MemoryBytes < minMemoryBytes {
		return fmt.Errorf("memory cap of %d bytes is under the %d a worker needs", spec.MemoryBytes, minMemoryBytes)
	}
	base, err := dataSize()
	if err != nil {
		return err
	}
	limits := []struct {
		res      int
		cur, max uint64
	}{
		{syscall.RLIMIT_DATA, base + uint64(spec.MemoryBytes), base + uint64(spec.MemoryBytes)},
		{syscall.RLIMIT_CPU, spec.CPUSeconds, spec.CPUSeconds},
		{syscall.RLIMIT_CORE, 0, 0},
	}
	for _, l := range limits {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.cur, Max: l.max}); err != nil {
			return fmt.Errorf("setrlimit %d: %w", l.res, err)
		}
	}
	memoryBudget(spec)
	return nil
}

// dataSize is this process's data segment (VmData) in bytes: what
// RLIMIT_DATA counts.
func dataSize() (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmData:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmData %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmData in /proc/self/status")
}

// armCPU sets the soft CPU cap to the worker's CPU time so far plus the
// run's timeout and a second, and reports false, arming nothing, when
// that is past the worker's lifetime cap.
func armCPU(timeout time.Duration, lifetime uint64) bool {
	soft := uint64((cpuTime()+timeout+time.Second)/time.Second) + 1
	if soft > lifetime {
		return false
	}
	return syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: soft, Max: lifetime}) == nil
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
