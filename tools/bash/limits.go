package bash

import (
	"golang.org/x/sys/unix"
)

// Limits are the setrlimit caps a command runs under, so a runaway one
// cannot exhaust the host. Each is set as both the soft and the hard
// limit, so the command cannot raise it again. Zero leaves a resource
// as the parent has it.
type Limits struct {
	// CPUSeconds caps CPU time (RLIMIT_CPU); past it the kernel kills
	// the process.
	CPUSeconds uint64 `json:"cpu_seconds,omitempty"`
	// FileSizeBytes caps the size of any file the command writes
	// (RLIMIT_FSIZE).
	FileSizeBytes uint64 `json:"file_size_bytes,omitempty"`
	// AddressSpaceBytes caps virtual memory (RLIMIT_AS).
	AddressSpaceBytes uint64 `json:"address_space_bytes,omitempty"`
	// Processes caps the processes of the user (RLIMIT_NPROC), which
	// stops a fork bomb.
	Processes uint64 `json:"processes,omitempty"`
}

// DefaultLimits are the caps of a [HostBackend] and an
// [OsSandboxBackend] unless set otherwise.
var DefaultLimits = Limits{
	CPUSeconds:        300,
	FileSizeBytes:     1 << 30,
	AddressSpaceBytes: 8 << 30,
}

func (l Limits) zero() bool { return l == Limits{} }

// applyLimits sets l on this process.
func applyLimits(l Limits) error {
	for _, r := range []struct {
		res int
		v   uint64
	}{
		{unix.RLIMIT_CPU, l.CPUSeconds},
		{unix.RLIMIT_FSIZE, l.FileSizeBytes},
		{unix.RLIMIT_AS, l.AddressSpaceBytes},
		{unix.RLIMIT_NPROC, l.Processes},
	} {
		if r.v == 0 {
			continue
		}
		if err := unix.Setrlimit(r.res, &unix.Rlimit{Cur: r.v, Max: r.v}); err != nil {
			return err
		}
	}
	return nil
}
