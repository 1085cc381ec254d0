//go:build race

package workflow_test

// raceEnabled reports that the race detector is on: it makes sync.Pool
// drop a share of what it is given, so counts of allocations vary.
const raceEnabled = true
