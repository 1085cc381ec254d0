package sqlite

import (
	"errors"
	"fmt"
)

// ErrEmptyID reports a session opened without an id.
var ErrEmptyID = errors.New("sqlite: session id is empty")

// ErrBusy reports that the database stayed locked by another writer for
// the whole busy timeout. The append that returns it persisted nothing and
// may be retried.
var ErrBusy = errors.New("sqlite: database is locked")

// wrap adds the session and operation to err, and [ErrBusy] when SQLite
// reported a lock it could not get.
func wrap(op, id string, err error) error {
	if isBusy(err) {
		return fmt.Errorf("sqlite: %s session %q: %w: %w", op, id, ErrBusy, err)
	}
	return fmt.Errorf("sqlite: %s session %q: %w", op, id, err)
}
