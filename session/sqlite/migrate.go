package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate brings the database's schema up to date. It is idempotent and
// safe to run from several processes at once: the migrations run in one
// write transaction, so a second migrator waits and then finds nothing to do.
func Migrate(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	return immediate(ctx, db, func(conn *sql.Conn) error {
		if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS helikon_session_migrations (
			version    INTEGER PRIMARY KEY,
			applied_at INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("sqlite: migrate: %w", err)
		}
		for _, name := range names { // fs.Glob sorts, and names start with a zero-padded version
			base := strings.TrimPrefix(name, "migrations/")
			version, err := strconv.Atoi(base[:strings.IndexByte(base, '_')])
			if err != nil {
				return fmt.Errorf("sqlite: migration %s: bad version: %w", base, err)
			}
			var applied int
			if err := conn.QueryRowContext(ctx,
				`SELECT count(*) FROM helikon_session_migrations WHERE version = ?`, version).Scan(&applied); err != nil {
				return fmt.Errorf("sqlite: migrate: %w", err)
			}
			if applied > 0 {
				continue
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				return fmt.Errorf("sqlite: migration %s: %w", base, err)
			}
			if _, err := conn.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("sqlite: migration %s: %w", base, err)
			}
			if _, err := conn.ExecContext(ctx,
				`INSERT INTO helikon_session_migrations (version, applied_at) VALUES (?, ?)`,
				version, time.Now().UnixNano()); err != nil {
				return fmt.Errorf("sqlite: migration %s: %w", base, err)
			}
		}
		return nil
	})
}

// immediate runs fn in a BEGIN IMMEDIATE transaction on one connection: the
// write lock is taken up front, so the transaction never has to upgrade a
// read lock, which SQLite may refuse without waiting.
func immediate(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := fn(conn); err != nil {
		rollback(conn)
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		rollback(conn)
		return err
	}
	return nil
}

// rollback ends a failed transaction. It ignores the caller's context, which
// may be what failed; if even that does not work the connection is dropped
// from the pool rather than handed out mid-transaction.
func rollback(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
