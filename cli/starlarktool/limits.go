package starlarktool

import "time"

// Limits bound one script call.
type Limits struct {
	// MaxSteps caps the Starlark instructions executed.
	MaxSteps uint64
	// Timeout caps the wall-clock time.
	Timeout time.Duration
	// MaxOutputBytes caps the JSON the call returns.
	MaxOutputBytes int
	// MaxArgsBytes caps the JSON arguments accepted.
	MaxArgsBytes int
}

// DefaultLimits returns the caps a tool gets without [WithLimits]: one
// million steps, two seconds, 256 KiB of output and 1 MiB of arguments.
func DefaultLimits() Limits {
	return Limits{MaxSteps: 1_000_000, Timeout: 2 * time.Second, MaxOutputBytes: 256 << 10, MaxArgsBytes: 1 << 20}
}
