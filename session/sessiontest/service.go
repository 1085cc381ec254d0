package sessiontest

import (
	"os"
	"testing"
)

// Unreachable ends a test whose service does not answer. Outside CI it
// skips with msg, which should name the service and how to start it; when
// the CI environment variable is "true" it fails, so that nothing skips
// silently in CI.
func Unreachable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
