//go:build !unix

package providertest

import "time"

// processCPU reports that this platform's CPU time is not read.
func processCPU() (time.Duration, bool) { return 0, false }
