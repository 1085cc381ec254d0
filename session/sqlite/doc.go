// Package sqlite stores [helikon.Session] logs in a SQLite database, through
// the pure-Go driver modernc.org/sqlite (no cgo) unless built with the
// sqlite_cgo tag (see Drivers). It is the embedded default: one database
// file holds many sessions, told apart by id.
//
// The smallest use opens a database with the recommended settings and a
// session in it:
//
//	db, err := sqlite.OpenDB(ctx, "sessions.db")
//	if err != nil {
//		return err
//	}
//	defer db.Close()
//	session, err := sqlite.Open(ctx, db, "user-42") // migrates, then opens
//
// [Open] runs the embedded migrations on every call. A server that opens
// many sessions calls [Migrate] once at startup and [OpenWithoutMigrate] on
// the hot path.
//
// # Settings
//
// [OpenDB] turns on WAL journaling with synchronous=NORMAL, the pairing for
// many writers: a power loss may drop the newest commits but never
// corrupts the file. Its busy timeout ([DefaultBusyTimeout], changed with
// [WithBusyTimeout]) caps how long one append waits for the database's
// write lock. Under sustained contention the worst-placed writer waits out
// the whole backlog ahead of it, so size the timeout against writers ×
// appends × the slowest transaction, not against one transaction. An
// append that waits it out fails with an error matching [ErrBusy],
// persists nothing, and leaves the session usable.
//
// A *sql.DB opened elsewhere works too; appends take the write lock with
// BEGIN IMMEDIATE whatever its settings are.
//
// # Drivers
//
// By default [OpenDB] opens modernc.org/sqlite, SQLite transpiled to Go: it
// builds with only Go installed, CGO_ENABLED=0 included. Built with
// -tags sqlite_cgo (and cgo, so a C compiler), it opens
// github.com/mattn/go-sqlite3, SQLite's C library, instead: a binary 1.6
// MB smaller (examples/agentcore's README gives the figures) that starts no
// faster, since cgo's own set-up at start costs about what modernc's did.
// The settings, [ErrBusy] and the stored format are the same; one file can
// be used by either. The tag without cgo stops the build rather than link
// go-sqlite3's stub, whose every call fails.
package sqlite
