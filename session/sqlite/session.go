package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// Session is a [helikon.Session] whose log lives in a SQLite database,
// under its session id. Many Sessions, in one process or several, may share
// a database and an id; appends serialise on the database's write lock.
type Session struct {
	db            *sql.DB
	id            string
	snapshotEvery int
	snapshotSet   bool
}

var _ helikon.Session = (*Session)(nil)

// Open migrates db ([Migrate]) and returns the session with the given id.
func Open(ctx context.Context, db *sql.DB, id string, opts ...SessionOption) (*Session, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	return OpenWithoutMigrate(db, id, opts...)
}

// OpenWithoutMigrate returns the session with the given id in a database
// that [Migrate] has already prepared. It does no I/O.
func OpenWithoutMigrate(db *sql.DB, id string, opts ...SessionOption) (*Session, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if db == nil {
		return nil, errors.New("sqlite: nil *sql.DB")
	}
	s := &Session{db: db, id: id}
	for _, o := range opts {
		o(s)
	}
	if s.snapshotSet && s.snapshotEvery <= 0 {
		return nil, fmt.Errorf("sqlite: snapshot interval %d must be positive", s.snapshotEvery)
	}
	return s, nil
}

// SessionID returns the id the session reads and writes.
func (s *Session) SessionID() string { return s.id }

// Append stores events after the last one in one BEGIN IMMEDIATE
// transaction, giving them consecutive sequence ids. When the write lock
// stays taken for the busy timeout it fails with [ErrBusy] and stores
// nothing.
func (s *Session) Append(ctx context.Context, events ...helikon.SessionEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	recs, err := eventcodec.Encode(events)
	if err != nil {
		return wrap("append to", s.id, err)
	}
	err = immediate(ctx, s.db, func(conn *sql.Conn) error {
		var next int64
		if err := conn.QueryRowContext(ctx,
			`SELECT COALESCE(MAX(sequence), -1) + 1 FROM session_events WHERE session_id = ?`, s.id).Scan(&next); err != nil {
			return err
		}
		for i, r := range recs {
			if _, err := conn.ExecContext(ctx,
				`INSERT INTO session_events (session_id, sequence, kind, ts, payload) VALUES (?, ?, ?, ?, ?)`,
				s.id, next+int64(i), r.Kind, r.Time.UnixNano(), string(r.Payload)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap("append to", s.id, err)
	}
	return nil
}

// Events returns the events after position after, in order.
func (s *Session) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return eventcodec.Collect(ctx, s.each, after)
}

// each reads the events after position after, in order. A long read is
// decoded while the driver steps through the rows ([eventcodec.DecodeAhead]).
func (s *Session) each(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	rows, err := s.db.QueryContext(ctx,
		`SELECT sequence, payload FROM session_events WHERE session_id = ? AND sequence > ? ORDER BY sequence`,
		s.id, int64(after))
	if err != nil {
		return wrap("read", s.id, err)
	}
	defer rows.Close()
	err = eventcodec.DecodeAhead(ctx, func(emit func(int64, []byte) error) error {
		var seq int64
		var payload sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&seq, &payload); err != nil {
				return wrap("read", s.id, err)
			}
			if err := emit(seq, payload); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return wrap("read", s.id, err)
		}
		return nil
	}, fn)
	var decErr *eventcodec.DecodeError
	if errors.As(err, &decErr) {
		return wrap("read", s.id, err)
	}
	return err
}

// Snapshot returns the log projected to messages ([helikon.Project]); see
// [WithSnapshotEvery] for what it reads.
func (s *Session) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return eventcodec.Items(s.LoadProjection(ctx))
}
