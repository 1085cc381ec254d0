// Package cputime reads the CPU time the process has used, for benchmarks
// that report it beside wall time: on a machine shared with other jobs it
// is steadier, since it does not count the waits for a core (nor for a
// server's reply).
package cputime

// PerCall returns the process CPU time in nanoseconds per call of f over n
// calls (garbage collection included), or 0 where it cannot be read.
func PerCall(f func(), n int) float64 {
	start, ok := Process()
	if !ok {
		return 0
	}
	for range n {
		f()
	}
	end, _ := Process()
	return float64((end - start).Nanoseconds()) / float64(n)
}
