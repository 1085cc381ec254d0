//go:build !unix

package helikon

import "time"

// processCPU is unavailable here.
func processCPU() (time.Duration, bool) { return 0, false }
