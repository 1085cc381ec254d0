//go:build race

package helikon_test

// raceEnabled reports that the race detector is on: it multiplies memory
// use, so memory figures are measured in a run without it.
const raceEnabled = true
