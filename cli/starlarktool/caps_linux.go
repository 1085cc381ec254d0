package starlarktool

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// platformErr is nil: Linux caps a worker's memory and CPU.
func platformErr() error { return nil }

// capProcess puts this worker under spec's kernel caps and the Go
// runtime's own memory and stack limits inside them.
//
// Memory takes two limits, each at the worker's size now plus
// MemoryBytes, because neither holds alone for a Go program. The runtime
// reserves address space (PROT_NONE) and later maps it writable with
// MAP_FIXED; the kernel checks RLIMIT_DATA only against what a mapping
// adds to the address space, which over a reservation is nothing, so a
// 192 MiB list slipped past a 64 MiB RLIMIT_DATA in tests. RLIMIT_AS
// counts the reservations, and every new heap arena needs one, so it
// holds the heap, in steps of Go's 64 MiB arenas; RLIMIT_DATA still
// holds what is mapped outside them (the runtime's off-heap memory).
// Both leave room for threadAllowance besides, for the stacks of the
// threads the runtime starts later (see shrinkThreadMemory): a worker that
// cannot start one dies.
func capProcess(spec workerSpec) error {
	if spec.MemoryBytes < minMemoryBytes {
		return fmt.Errorf("memory cap of %d bytes is under the %d a worker needs", spec.MemoryBytes, minMemoryBytes)
	}
	if err := shrinkThreadMemory(); err != nil {
		return err
	}
	size, data, err := vmSizes()
	if err != nil {
		return err
	}
	mem := uint64(spec.MemoryBytes) + threadAllowance
	limits := []struct {
		res      int
		cur, max uint64
	}{
		{syscall.RLIMIT_AS, size + mem, size + mem},
		{syscall.RLIMIT_DATA, data + mem, data + mem},
		{syscall.RLIMIT_CPU, spec.CPUSeconds, spec.CPUSeconds},
		{syscall.RLIMIT_CORE, 0, 0},
	}
	for _, l := range limits {
		// A limit the program already runs under that is lower stays:
		// without privilege it cannot be raised, and it is the stricter.
		var old syscall.Rlimit
		if err := syscall.Getrlimit(l.res, &old); err == nil && old.Max < l.max {
			l.cur, l.max = min(l.cur, old.Max), old.Max
		}
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.cur, Max: l.max}); err != nil {
			return fmt.Errorf("setrlimit %d: %w", l.res, err)
		}
	}
	memoryBudget(spec)
	return nil
}

// threadAllowance is the address space a worker may add beyond
// MemoryBytes for the stacks of threads its runtime starts after the caps
// are set: at threadStack each, room for 96. On a loaded machine (a CI run
// on 2 cores, 2026-12-04) a worker's runtime was seen at 8 threads; with
// the C library's 8 MiB stacks those did not fit, and a heap that could
// not grow at 4 MiB in use read as the memory cap. The stacks are address
// space only, nearly none of it resident. It stays under one 64 MiB heap
// arena: with the default 64 MiB cap RLIMIT_AS still admits the one arena
// beyond the cap, never a second.
const threadAllowance = 48 << 20

// threadStack is the stack of each thread a worker starts once capped. It
// holds the runtime's scheduler and collector work and any C call (the
// race detector's among them), never Go code, which runs on goroutine
// stacks: Go's own threads without cgo take 16 KiB.
const threadStack = 512 << 10

// vmSizes returns this process's address space (VmSize, what RLIMIT_AS
// counts) and data segment (VmData, what RLIMIT_DATA counts) in bytes.
func vmSizes() (size, data uint64, err error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	for line := range bytes.Lines(status) {
		for _, f := range []struct {
			prefix string
			dst    *uint64
		}{{"VmSize:", &size}, {"VmData:", &data}} {
			if rest, ok := bytes.CutPrefix(line, []byte(f.prefix)); ok {
				kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
				if err != nil {
					return 0, 0, fmt.Errorf("%s %q: %w", f.prefix, rest, err)
				}
				*f.dst = kb << 10
			}
		}
	}
	if size == 0 || data == 0 {
		return 0, 0, fmt.Errorf("no VmSize or VmData in /proc/self/status")
	}
	return size, data, nil
}

// exitOnCPUCap ends the worker when it passes its soft CPU cap. The
// kernel sends SIGXCPU there, which a Go program ignores unless it asks
// for it; exiting with a message of its own lets the host see which cap
// it was.
func exitOnCPUCap() {
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		fmt.Fprintln(os.Stderr, "starlarktool worker: CPU cap exceeded")
		os.Exit(4)
	}()
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
