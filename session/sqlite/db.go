package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// DefaultBusyTimeout is how long [OpenDB]'s connections wait for a lock
// before failing with [ErrBusy].
const DefaultBusyTimeout = 5 * time.Second

// Option configures [OpenDB].
type Option func(*dbConfig)

type dbConfig struct {
	busyTimeout time.Duration
	synchronous string
}

// WithBusyTimeout sets how long one statement waits for a lock held by
// another connection before it fails with [ErrBusy]. It must be positive.
func WithBusyTimeout(d time.Duration) Option { return func(c *dbConfig) { c.busyTimeout = d } }

// WithSynchronousFull makes every commit wait for the disk (synchronous=FULL)
// instead of the default NORMAL: no commit is lost to a power cut, at the
// price of one fsync per append.
func WithSynchronousFull() Option { return func(c *dbConfig) { c.synchronous = "FULL" } }

// OpenDB opens (creating if needed) the SQLite database file at path with
// WAL journaling, synchronous=NORMAL and [DefaultBusyTimeout], and checks
// that it can be used. The caller closes the returned *sql.DB.
func OpenDB(ctx context.Context, path string, opts ...Option) (*sql.DB, error) {
	cfg := dbConfig{busyTimeout: DefaultBusyTimeout, synchronous: "NORMAL"}
	for _, o := range opts {
		o(&cfg)
	}
	switch {
	case path == "":
		return nil, notAFile(path)
	case strings.ContainsAny(path, "?#"):
		return nil, fmt.Errorf("sqlite: path %q: '?' and '#' are not allowed in a database path", path)
	case cfg.busyTimeout <= 0:
		return nil, fmt.Errorf("sqlite: busy timeout %v must be positive", cfg.busyTimeout)
	}
	db, err := sql.Open(driverName, dsn(path, cfg.busyTimeout, cfg.synchronous))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// SQLite, not the path's spelling, says whether the database is a file:
	// besides ":memory:", a URI path such as "file:%3Amemory%3A" or "file:"
	// opens an in-memory or temporary database, one per pooled connection.
	var file string
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if file == "" {
		db.Close()
		return nil, notAFile(path)
	}
	return db, nil
}

// notAFile reports a path that opens no database file: each pooled
// connection would get its own empty database.
func notAFile(path string) error {
	return fmt.Errorf("sqlite: path %q must name a database file; in-memory and temporary databases are per connection", path)
}
