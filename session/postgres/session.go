package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// Session is a [helikon.Session] whose log lives in PostgreSQL under its
// session id. Any number of Sessions, in any number of processes, may share
// an id; their appends serialise on the id's advisory lock.
type Session struct {
	pool          *pgxpool.Pool
	id            string
	snapshotEvery int
	snapshotSet   bool
}

var _ helikon.Session = (*Session)(nil)

// Open migrates the database ([Migrate]) and returns the session with the
// given id.
func Open(ctx context.Context, pool *pgxpool.Pool, id string, opts ...SessionOption) (*Session, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if err := Migrate(ctx, pool); err != nil {
		return nil, err
	}
	return OpenWithoutMigrate(pool, id, opts...)
}

// OpenWithoutMigrate returns the session with the given id in a database
// that [Migrate] has already prepared. It does no I/O.
func OpenWithoutMigrate(pool *pgxpool.Pool, id string, opts ...SessionOption) (*Session, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if pool == nil {
		return nil, errors.New("postgres: nil pool")
	}
	s := &Session{pool: pool, id: id}
	for _, o := range opts {
		o(s)
	}
	if s.snapshotSet && s.snapshotEvery <= 0 {
		return nil, fmt.Errorf("postgres: snapshot interval %d must be positive", s.snapshotEvery)
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

// The append runs as one pipeline: an explicit READ COMMITTED transaction
// (whatever the server's default isolation, the insert must see rows
// committed while it waited for the lock), the per-session lock, and one
// INSERT that numbers the batch from the current maximum.
const (
	beginSQL  = `BEGIN ISOLATION LEVEL READ COMMITTED`
	lockSQL   = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`
	insertSQL = `INSERT INTO session_events (session_id, sequence, kind, ts, payload)
SELECT $1, base.next + e.n - 1, e.kind, e.ts, e.payload::json
FROM (SELECT COALESCE(MAX(sequence), -1) + 1 AS next FROM session_events WHERE session_id = $1) AS base,
     unnest($2::text[], $3::timestamptz[], $4::text[]) WITH ORDINALITY AS e(kind, ts, payload, n)`
	commitSQL = `COMMIT`
)

// Append stores events after the last one, atomically, giving them
// consecutive sequence ids.
func (s *Session) Append(ctx context.Context, events ...helikon.SessionEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	recs, err := eventcodec.Encode(events)
	if err != nil {
		return fmt.Errorf("postgres: append to session %q: %w", s.id, err)
	}
	kinds := make([]string, len(recs))
	times := make([]time.Time, len(recs))
	payloads := make([]string, len(recs))
	for i, r := range recs {
		kinds[i], times[i] = r.Kind, r.Time
		if payloads[i], err = storedPayload(r.Payload); err != nil {
			return fmt.Errorf("postgres: append to session %q: %w", s.id, err)
		}
	}
	b := &pgx.Batch{}
	b.Queue(beginSQL)
	b.Queue(lockSQL, s.id)
	b.Queue(insertSQL, s.id, kinds, times, payloads)
	b.Queue(commitSQL)
	// A failure inside the pipeline leaves the connection in an aborted
	// transaction; the pool discards such connections on release, which
	// rolls the transaction back.
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return wrap(fmt.Sprintf("append to session %q", s.id), err)
	}
	return nil
}

// Events returns the events after position after, in order.
func (s *Session) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return eventcodec.Collect(ctx, s.each, after)
}

// eventsSQL reads the events after a position. The payload comes as the
// column holds it: json is sent as stored, where a jsonb column (a table
// [Migrate] left unconverted) costs the server a rendering per row.
const eventsSQL = `SELECT sequence, payload FROM session_events WHERE session_id = $1 AND sequence > $2 ORDER BY sequence`

// each reads the events after position after, in order, decoding each
// payload in the connection's read buffer (no copy per row).
//
// A connection that prepared the query before the payload column changed
// type ([ConvertPayloadColumn], or [Migrate] in another process) gets
// "cached plan must not change result type" once, before any row; pgx
// then forgets the statement, so the read is tried again. Each of the
// pool's connections has its own statements, so the next attempt may
// meet another stale one: a read tries once more than the pool has
// connections, which is enough, since each failure cures one.
func (s *Session) each(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	for attempt := 0; ; attempt++ {
		delivered := false
		err := s.read(ctx, after, func(ev helikon.SessionEvent) error {
			delivered = true
			return fn(ev)
		})
		if !delivered && isStalePlan(err) && attempt <= int(s.pool.Config().MaxConns) {
			continue
		}
		return err
	}
}

// isStalePlan reports the server's refusal of a statement prepared before
// a column it reads changed type.
func isStalePlan(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == featureNotSupported &&
		strings.Contains(pgErr.Message, "cached plan must not change result type")
}

// featureNotSupported is the SQLSTATE of "cached plan must not change
// result type".
const featureNotSupported = "0A000"

// read is one attempt of [Session.each].
func (s *Session) read(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	rows, err := s.pool.Query(ctx, eventsSQL, s.id, int64(after))
	if err != nil {
		return wrap(fmt.Sprintf("read session %q", s.id), err)
	}
	defer rows.Close()
	if err := eachRow(rows, fn); err != nil {
		return fmt.Errorf("postgres: read session %q: %w", s.id, err)
	}
	if err := rows.Err(); err != nil {
		return wrap(fmt.Sprintf("read session %q", s.id), err)
	}
	return nil
}

// eachRow decodes rows of (sequence, payload) from their raw values.
func eachRow(rows pgx.Rows, fn func(helikon.SessionEvent) error) error {
	var dec eventcodec.Decoder // one per read: the events share their names
	// The columns' types and formats are known once a row has come: in
	// some query modes the server describes them only with the rows.
	var seqFormat, payloadFormat int16
	var payloadType uint32
	for first := true; rows.Next(); first = false {
		if first {
			fields := rows.FieldDescriptions()
			if len(fields) != 2 {
				return fmt.Errorf("%w: rows of %d columns, want 2", helikon.ErrSessionCorrupt, len(fields))
			}
			seqFormat, payloadType, payloadFormat = fields[0].Format, fields[1].DataTypeOID, fields[1].Format
		}
		raw := rows.RawValues()
		seq, err := int8Value(raw[0], seqFormat)
		if err != nil {
			return err
		}
		payload, err := eventPayload(raw[1], payloadType, payloadFormat)
		if err != nil {
			return fmt.Errorf("event %d: %w", seq, err)
		}
		ev, err := dec.Decode(seq, payload)
		if err != nil {
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

// int8Value reads a bigint in the wire format the server sent it in.
func int8Value(raw []byte, format int16) (int64, error) {
	if format == pgx.BinaryFormatCode {
		if len(raw) != 8 {
			return 0, fmt.Errorf("%w: bigint of %d bytes", helikon.ErrSessionCorrupt, len(raw))
		}
		return int64(binary.BigEndian.Uint64(raw)), nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: sequence: %w", helikon.ErrSessionCorrupt, err)
	}
	return n, nil
}

// Snapshot returns the log projected to messages ([helikon.Project]); see
// [WithSnapshotEvery] for what it reads.
func (s *Session) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return eventcodec.Items(s.LoadProjection(ctx))
}
