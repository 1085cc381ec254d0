package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"unsafe"

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

// AppendOnly reports that the session's log is never trimmed: no event is
// ever removed, so it starts at position 0. A reader that needs every
// event (governance's written-file record) may then take a cached
// projection of it for the log (package session/sessioncache forwards
// it).
func (s *Session) AppendOnly() bool { return true }

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

// eventsSQL reads the events after a position.
const eventsSQL = `SELECT sequence, payload FROM session_events WHERE session_id = ? AND sequence > ? ORDER BY sequence`

// each reads the events after position after, in order. A long read is
// decoded while the driver steps through the rows ([eventcodec.DecodeAhead]).
//
// The rows come from the driver's connection itself ([sql.Conn.Raw]):
// database/sql's locking and conversion of every row's values were a
// seventh of a read that stepping through SQLite's rows already makes the
// slowest part of a load.
func (s *Session) each(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return wrap("read", s.id, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("sqlite: the driver's connection (%T) cannot query", dc)
		}
		rows, err := q.QueryContext(ctx, eventsSQL, []driver.NamedValue{{Ordinal: 1, Value: s.id}, {Ordinal: 2, Value: int64(after)}})
		if err != nil {
			return wrap("read", s.id, err)
		}
		defer rows.Close()
		return eventcodec.DecodeAhead(ctx, func(emit func(int64, []byte) error) error {
			row := make([]driver.Value, 2)
			for n := 1; ; n++ {
				// modernc looks at ctx only while QueryContext runs (go-sqlite3
				// also while it steps), so the row loop does, every
				// checkEvery rows.
				if n%checkEvery == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				if err := rows.Next(row); err == io.EOF {
					return nil
				} else if err != nil {
					return wrap("read", s.id, err)
				}
				seq, payload, err := storedRow(row)
				if err != nil {
					return wrap("read", s.id, err)
				}
				if err := emit(seq, payload); err != nil {
					return err
				}
			}
		}, fn)
	})
	var decErr *eventcodec.DecodeError
	if errors.As(err, &decErr) {
		return wrap("read", s.id, err)
	}
	return err
}

// checkEvery is how many rows a read steps through between looks at its
// context: about 0.25 ms of rows.
const checkEvery = 256

// storedRow returns the sequence id and payload of a row of eventsSQL as
// the driver gives them: an INTEGER, and TEXT (or a BLOB, which SQLite
// keeps when a writer stored one). The payload may share the driver's
// string; emit copies it before the next row.
func storedRow(row []driver.Value) (int64, []byte, error) {
	seq, ok := row[0].(int64)
	if !ok {
		return 0, nil, fmt.Errorf("%w: sequence of type %T", helikon.ErrSessionCorrupt, row[0])
	}
	switch p := row[1].(type) {
	case string:
		return seq, unsafe.Slice(unsafe.StringData(p), len(p)), nil
	case []byte:
		return seq, p, nil
	}
	return 0, nil, fmt.Errorf("%w: event %d: payload of type %T", helikon.ErrSessionCorrupt, seq, row[1])
}

// Snapshot returns the log projected to messages ([helikon.Project]); see
// [WithSnapshotEvery] for what it reads.
func (s *Session) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return eventcodec.Items(s.LoadProjection(ctx))
}
