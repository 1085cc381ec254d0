//go:build !unix

package cputime

import "time"

// Process returns the CPU time the process has used, user and system, and
// whether it could be read: here it cannot.
func Process() (time.Duration, bool) { return 0, false }
