//go:build sqlite_cgo && cgo

package sqlite_test

import (
	"testing"

	"github.com/mattn/go-sqlite3"
)

// TestOpenDB_SqliteCgoTagOpensGoSqlite3: with the sqlite_cgo tag the pool
// runs on go-sqlite3, so the rest of the suite checks that driver.
func TestOpenDB_SqliteCgoTagOpensGoSqlite3(t *testing.T) {
	if d, ok := openDB(t).Driver().(*sqlite3.SQLiteDriver); !ok {
		t.Fatalf("driver %T, want *github.com/mattn/go-sqlite3.SQLiteDriver", d)
	}
}
