//go:build !sqlite_cgo

package sqlite_test

import (
	"testing"

	"modernc.org/sqlite"
)

// TestOpenDB_DefaultBuildOpensModernc: without the sqlite_cgo tag the pool
// runs on the pure-Go driver, so the package builds with CGO_ENABLED=0.
func TestOpenDB_DefaultBuildOpensModernc(t *testing.T) {
	if d, ok := openDB(t).Driver().(*sqlite.Driver); !ok {
		t.Fatalf("driver %T, want *modernc.org/sqlite.Driver", d)
	}
}
