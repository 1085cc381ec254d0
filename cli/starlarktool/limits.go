package starlarktool

import "time"

// Limits bound one script run: a call, or the top level when the script
// loads.
type Limits struct {
	// MaxSteps caps the Starlark instructions executed.
	MaxSteps uint64
	// Timeout caps the wall-clock time. A built-in still running at the
	// cap is stopped with its worker 20 ms later (the call returns under
	// 100 ms past the cap in BenchmarkTimeCapOverrun).
	Timeout time.Duration
	// MaxOutputBytes caps the JSON the call returns, and the text of an
	// error (a fail() message) the model sees.
	MaxOutputBytes int
	// MaxArgsBytes caps the JSON arguments accepted.
	MaxArgsBytes int
	// MemoryBytes caps the memory of the worker process that runs the
	// script, beyond what it had at start (the Go runtime's and the
	// program's own): the kernel refuses it more address space
	// (RLIMIT_AS) or data (RLIMIT_DATA) than that plus 32 MiB for thread
	// stacks, and the worker dies. Go takes its heap in 64 MiB arenas, so
	// a script's live data gets somewhat less. A run's Go stack, so its
	// nesting, gets an eighth. At least 64 MiB.
	MemoryBytes int64
}

// minMemoryBytes is the least MemoryBytes a worker can run a script in.
const minMemoryBytes = 64 << 20

// DefaultLimits returns the caps a tool gets without [WithLimits]: one
// million steps, two seconds, 256 KiB of output, 1 MiB of arguments and
// 256 MiB of memory.
func DefaultLimits() Limits {
	return Limits{MaxSteps: 1_000_000, Timeout: 2 * time.Second, MaxOutputBytes: 256 << 10,
		MaxArgsBytes: 1 << 20, MemoryBytes: 256 << 20}
}

// withDefaults fills l's zero fields from [DefaultLimits].
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxSteps == 0 {
		l.MaxSteps = d.MaxSteps
	}
	if l.Timeout == 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxOutputBytes == 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxArgsBytes == 0 {
		l.MaxArgsBytes = d.MaxArgsBytes
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	return l
}
