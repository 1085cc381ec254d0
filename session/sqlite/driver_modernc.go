//go:build !sqlite_cgo

package sqlite

import (
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// driverName is the database/sql driver [OpenDB] opens: modernc.org/sqlite,
// SQLite transpiled to Go, so the default build needs no C compiler.
const driverName = "sqlite"

// dsn is the data source name of path with the busy timeout, WAL journaling
// and the synchronous level, in modernc's _pragma form.
func dsn(path string, busyTimeout time.Duration, synchronous string) string {
	return fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(%s)",
		path, busyTimeout.Milliseconds(), synchronous)
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (or one of its extended
// codes) as modernc reports it.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
