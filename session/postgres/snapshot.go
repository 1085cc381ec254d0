package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// SessionOption configures a [Session].
type SessionOption func(*Session)

// WithSnapshotEvery makes the session keep a compacted snapshot: its
// projection as of a position, in the session_snapshots table. Snapshot
// then reads the snapshot and only the events after it, and a load that
// folded n or more events past the snapshot stores a new one (a write of
// the whole projection, once every n events). Appends cost nothing more.
// The log stays the authority: Events is unchanged, and a snapshot is
// only ever a fold of it. n must be positive.
func WithSnapshotEvery(n int) SessionOption {
	return func(s *Session) { s.snapshotEvery, s.snapshotSet = n, true }
}

// LoadProjection returns the projection of the log, from the snapshot and
// the events after it when the session keeps snapshots, else from the
// whole log.
func (s *Session) LoadProjection(ctx context.Context) (*helikon.Projection, error) {
	var store eventcodec.SnapshotStore
	if s.snapshotEvery > 0 {
		store = snapshots{s}
	}
	return eventcodec.LoadProjection(ctx, store, s.each, s.snapshotEvery)
}

// SaveSnapshot stores the projection of the whole log as the session's
// snapshot, whether or not the session was opened [WithSnapshotEvery].
func (s *Session) SaveSnapshot(ctx context.Context) error {
	if err := eventcodec.SaveSnapshot(ctx, snapshots{s}, s.each); err != nil {
		return wrap(fmt.Sprintf("snapshot session %q", s.id), err)
	}
	return nil
}

// snapshots is the session's row of session_snapshots.
type snapshots struct{ s *Session }

func (t snapshots) ReadSnapshot(ctx context.Context) ([]byte, error) {
	var payload []byte
	err := t.s.pool.QueryRow(ctx, `SELECT payload FROM session_snapshots WHERE session_id = $1`, t.s.id).Scan(&payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(fmt.Sprintf("read session %q", t.s.id), err)
	}
	return payload, nil
}

func (t snapshots) WriteSnapshot(ctx context.Context, seq int64, payload []byte) error {
	_, err := t.s.pool.Exec(ctx, `INSERT INTO session_snapshots (session_id, sequence, payload) VALUES ($1, $2, $3)
		ON CONFLICT (session_id) DO UPDATE SET sequence = excluded.sequence, payload = excluded.payload
		WHERE excluded.sequence > session_snapshots.sequence`, t.s.id, seq, payload)
	return err
}
