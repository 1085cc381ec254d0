package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paigasus/helikon"
)

// ErrEmptyID reports a session opened without an id.
var ErrEmptyID = errors.New("postgres: session id is empty")

// wrap adds op (what failed) to an error from the server or the
// pool. A failure that is neither the server's answer nor the caller's
// context (a refused or broken connection) also matches
// [helikon.ErrSessionUnavailable].
func wrap(op string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	return fmt.Errorf("postgres: %s: %w: %w", op, helikon.ErrSessionUnavailable, err)
}
