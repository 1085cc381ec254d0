package bash

import (
	"errors"
	"fmt"
	"strings"
)

// Limits are the caps a command runs under, so a runaway one cannot
// exhaust the host. The setrlimit ones are set as both the soft and the
// hard limit, so the command cannot raise them again. Zero leaves a
// resource as the parent has it.
type Limits struct {
	// CPUSeconds caps CPU time (RLIMIT_CPU); past it the kernel kills
	// the process.
	CPUSeconds uint64 `json:"cpu_seconds,omitempty"`
	// FileSizeBytes caps the size of any file the command writes
	// (RLIMIT_FSIZE). It is rounded down to a whole KiB, the unit of
	// the shell's ulimit.
	FileSizeBytes uint64 `json:"file_size_bytes,omitempty"`
	// AddressSpaceBytes caps virtual memory (RLIMIT_AS), rounded down to
	// a whole KiB.
	AddressSpaceBytes uint64 `json:"address_space_bytes,omitempty"`
	// Processes caps the processes of a call through a pids cgroup,
	// where one can be made, and of the sandbox user (RLIMIT_NPROC), which
	// stops a fork bomb: the user's calls running at once share that one.
	Processes uint64 `json:"processes,omitempty"`
	// MemoryBytes caps the memory of a call as a whole: every process
	// it starts, and what no address space counts (a memfd, a tmpfs
	// file, pipe buffers), through a memory cgroup per call with no
	// swap. Past it the kernel kills a process of the call, the backend
	// ends the rest, and the result says [Result.OutOfMemory]. It is
	// not an rlimit: a backend that cannot make a memory cgroup fails
	// construction when it is set ([ErrNoMemoryCgroup]). Zero is no
	// cap for [HostBackend] and [DefaultMemoryCap] for
	// [OsSandboxBackend], which, where no memory cgroup can be made,
	// runs without one and says so in its label.
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
}

// DefaultLimits are the caps of a [HostBackend] and an
// [OsSandboxBackend] unless set otherwise.
var DefaultLimits = Limits{
	CPUSeconds:        300,
	FileSizeBytes:     1 << 30,
	AddressSpaceBytes: 8 << 30,
}

// ErrNoMemoryCgroup is the construction error of a backend asked for a
// memory cap ([Limits.MemoryBytes]) where this process can make no memory
// cgroup to enforce it: nothing else would, so it fails closed.
var ErrNoMemoryCgroup = errors.New("bash: no memory cgroup to enforce Limits.MemoryBytes")

// byteSize writes n in the largest binary unit that divides it, for
// labels and messages.
func byteSize(n uint64) string {
	for _, u := range []struct {
		name  string
		bytes uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return fmt.Sprintf("%d %s", n/u.bytes, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitStatusFD is the descriptor on which the shell reports that it
// could not set the limits. The prefix closes it before the command
// runs, so EOF with nothing read means the limits are in force.
const limitStatusFD = 3

// prefix returns the shell text that sets l before the command: bash's
// ulimit builtin, run by the very shell that then runs the command, so
// the caps cost no extra process. Without -H or -S, ulimit sets the
// soft and the hard limit, which an unprivileged command cannot raise.
// If setting them fails, the error goes to [limitStatusFD] and the shell
// exits before the command starts. It is empty when l is zero.
//
// The prefix ends the first line with "; " rather than a newline, so the
// command's line numbers in error messages stay its own.
func (l Limits) prefix() string {
	var b strings.Builder
	for _, r := range []struct {
		flag  string
		asked uint64
		v     uint64
	}{
		{"-t", l.CPUSeconds, l.CPUSeconds},
		{"-f", l.FileSizeBytes, l.FileSizeBytes / 1024},
		{"-v", l.AddressSpaceBytes, l.AddressSpaceBytes / 1024},
		{"-u", l.Processes, l.Processes},
	} {
		if r.asked != 0 {
			fmt.Fprintf(&b, " %s %d", r.flag, r.v)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("ulimit%s 2>&%d || exit 126; exec %d>&-; ", b.String(), limitStatusFD, limitStatusFD)
}
