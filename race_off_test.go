//go:build !race

package helikon_test

const raceEnabled = false
