// Package slowtest says whether the slow tests run. The README's test
// command (go test ./...) leaves them out so that it stays short; CI runs
// them: .ci/run sets HELIKON_SLOW_TESTS=1, and CI=true implies it. A test
// gated here is listed in the README's slow-tests paragraph, and a fast
// test of the same behaviour stays in the README's command.
package slowtest

import (
	"os"
	"testing"
)

// Enabled reports whether the slow tests run: HELIKON_SLOW_TESTS=1 or
// CI=true.
func Enabled() bool {
	return os.Getenv("HELIKON_SLOW_TESTS") == "1" || os.Getenv("CI") == "true"
}

// Skip skips t unless [Enabled], saying what the test does that makes it
// slow and how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skip(what + ": a slow test, run with HELIKON_SLOW_TESTS=1 (CI sets it)")
	}
}

// Size returns slow when the slow tests run and fast otherwise: the number
// of rounds of a test that repeats one behaviour many times, once a few
// rounds check the behaviour and the rest are a stress loop.
func Size(fast, slow int) int {
	if Enabled() {
		return slow
	}
	return fast
}
