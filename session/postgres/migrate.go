package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLockSQL serialises the schema changes of every process on one
// advisory lock, held to the end of the transaction.
const migrationLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended('helikon_session_migrations', 0))`

// Migrate brings the database's schema up to date. It is idempotent, and
// concurrent callers (every replica of a service at startup) serialise on
// an advisory lock, so each migration runs exactly once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrationLockSQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS helikon_session_migrations (
			version    integer PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		for _, name := range names { // fs.Glob sorts, and names start with a zero-padded version
			base := strings.TrimPrefix(name, "migrations/")
			version, err := strconv.Atoi(base[:strings.IndexByte(base, '_')])
			if err != nil {
				return fmt.Errorf("migration %s: bad version: %w", base, err)
			}
			var applied bool
			if err := tx.QueryRow(ctx,
				`SELECT EXISTS (SELECT 1 FROM helikon_session_migrations WHERE version = $1)`, version).Scan(&applied); err != nil {
				return err
			}
			if applied {
				continue
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO helikon_session_migrations (version) VALUES ($1)`, version); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
		}
		if err := convertSmallPayloadColumn(ctx, pool, tx); !errors.Is(err, errLeftForLater) {
			return err
		}
		return nil
	})
	if err != nil {
		return wrap("migrate", err)
	}
	return nil
}
