package redis

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// WithSnapshotEvery makes the session keep a compacted snapshot: its
// projection as of a position, in a hash beside the log (SnapshotKey).
// Snapshot then reads the snapshot and only the events after it, and a
// load that folded n or more events past the snapshot stores a new one (a
// write of the whole projection, once every n events). Appends cost
// nothing more. The log stays the authority: Events is unchanged, and a
// snapshot is only ever a fold of it. With [WithMaxLen], events trimmed
// after a snapshot took them in still count in its projection. n must be
// positive.
func WithSnapshotEvery(n int) Option {
	return func(c *config) { c.snapshotEvery, c.snapshotSet = n, true }
}

// SnapshotKey returns the key of the session's snapshot hash.
func (s *Session) SnapshotKey() string { return s.snapshot }

// LoadProjection returns the projection of the log, from the snapshot and
// the events after it when the session keeps snapshots, else from the
// whole log.
func (s *Session) LoadProjection(ctx context.Context) (*helikon.Projection, error) {
	var store eventcodec.SnapshotStore
	if s.snapshotEvery > 0 {
		store = snapshots{s}
	}
	return again(func() (*helikon.Projection, error) {
		return eventcodec.LoadProjection(ctx, store, s.each, s.snapshotEvery)
	})
}

// SaveSnapshot stores the projection of the whole log as the session's
// snapshot, whether or not the session was made [WithSnapshotEvery].
func (s *Session) SaveSnapshot(ctx context.Context) error {
	if err := eventcodec.SaveSnapshot(ctx, snapshots{s}, s.each); err != nil {
		return wrap(fmt.Sprintf("snapshot session %q", s.id), err)
	}
	return nil
}

// writeSnapshotScript stores a snapshot unless a later one is stored.
// KEYS[1] is the hash; ARGV[1] the position, ARGV[2] the payload.
var writeSnapshotScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'seq')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'payload', ARGV[2])
return 1
`)

// snapshots is the session's snapshot hash.
type snapshots struct{ s *Session }

func (t snapshots) ReadSnapshot(ctx context.Context) ([]byte, error) {
	payload, err := t.s.client.HGet(ctx, t.s.snapshot, "payload").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(fmt.Sprintf("read session %q", t.s.id), err)
	}
	return payload, nil
}

func (t snapshots) WriteSnapshot(ctx context.Context, seq int64, payload []byte) error {
	return writeSnapshotScript.Run(ctx, t.s.client, []string{t.s.snapshot}, seq, payload).Err()
}
