//go:build sqlite_cgo && cgo

package sqlite

import (
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// driverName is the database/sql driver [OpenDB] opens under the sqlite_cgo
// build tag: github.com/mattn/go-sqlite3, SQLite's C library through cgo.
// A binary saves modernc's size less that of SQLite's C code and of cgo's
// runtime (examples/agentcore's README has figures).
const driverName = "sqlite3"

// dsn is the data source name of path with the busy timeout, WAL journaling
// and the synchronous level, in go-sqlite3's parameter form. go-sqlite3
// splits it at the first '?' (OpenDB refuses one in path) and opens path as
// modernc does: a plain file name, or a URI if path starts with "file:".
func dsn(path string, busyTimeout time.Duration, synchronous string) string {
	return fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=%s",
		path, busyTimeout.Milliseconds(), synchronous)
}

// isBusy reports whether err is SQLite's SQLITE_BUSY as go-sqlite3 reports it.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}
