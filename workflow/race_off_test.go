//go:build !race

package workflow_test

const raceEnabled = false
