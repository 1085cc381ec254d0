package redis

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// Session is a [helikon.Session] whose log is a Redis list (or a Redis
// Stream, for sessions created as one). Any number of Sessions, in any
// number of processes, may share an id.
type Session struct {
	client redis.UniversalClient
	id     string
	events string // the list's or stream's key
	seq    string // a stream's counter key
	maxLen int64
	// create is the layout a new session is created in.
	create layout
	// seqField makes appends to a stream write each entry's seq as a field
	// too.
	seqField bool
	// layout is the layout the session was last read in, 0 before the
	// first read; listBase the sequence id a list read last found at its
	// first position. Both are hints a read checks.
	layout   atomic.Int32
	listBase atomic.Int64
	// snapshot is the snapshot hash's key, used WithSnapshotEvery.
	snapshot      string
	snapshotEvery int
}

var _ helikon.Session = (*Session)(nil)

// Option configures a [Session].
type Option func(*config)

type config struct {
	streams       bool
	seqField      bool
	maxLen        int64
	maxLenSet     bool
	snapshotEvery int
	snapshotSet   bool
}

// WithMaxLen bounds the session's log to its newest n events, trimming
// on every append. Sequence ids stay monotonic; trimmed events are gone
// (see the package documentation for the trade-off). n must be positive.
func WithMaxLen(n int64) Option {
	return func(c *config) { c.maxLen, c.maxLenSet = n, true }
}

// WithStreamLayout makes the session, if it is new, a Redis Stream, as
// versions before lists made every session. Those versions cannot read a
// list, and fail on one rather than write beside it (WRONGTYPE on reads,
// [ErrSequenceLost] on appends), so set this during a rolling upgrade,
// while processes of an earlier version open the same sessions, and drop
// it once none is left (see the package documentation). A session that
// exists keeps its layout whatever the option says: this version reads
// and appends to either.
func WithStreamLayout() Option {
	return func(c *config) { c.streams = true }
}

// WithSeqField makes appends to a stream write each entry's sequence id as
// a field too, beside the payload, as versions before the payload-only
// entries did. Those versions read the field, and fail on an entry
// without it ("bad seq"), so during a rolling upgrade from them use it
// with [WithStreamLayout] until none is left: the server reads an entry
// without the field in about 0.6 of the time (docs/sessions.md). This
// version reads entries of either form. Appends to a list ignore it.
func WithSeqField() Option {
	return func(c *config) { c.seqField = true }
}

// New returns the session with the given id on client. The client is the
// caller's: configure TLS, credentials and retries on it, and close it when
// done.
func New(client redis.UniversalClient, id string, opts ...Option) (*Session, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if client == nil {
		return nil, errors.New("redis: nil client")
	}
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxLenSet && cfg.maxLen <= 0 {
		return nil, fmt.Errorf("redis: max length %d must be positive", cfg.maxLen)
	}
	if cfg.snapshotSet && cfg.snapshotEvery <= 0 {
		return nil, fmt.Errorf("redis: snapshot interval %d must be positive", cfg.snapshotEvery)
	}
	create := layoutList
	if cfg.streams {
		create = layoutStream
	}
	return &Session{
		client: client,
		id:     id,
		events: "helikon:session:{" + id + "}:events",
		seq:    "helikon:session:{" + id + "}:seq",
		maxLen: cfg.maxLen,
		create: create,

		seqField: cfg.seqField,

		snapshot:      "helikon:session:{" + id + "}:snapshot",
		snapshotEvery: cfg.snapshotEvery,
	}, nil
}

// SessionID returns the id the session reads and writes.
func (s *Session) SessionID() string { return s.id }

// EventsKey returns the key of the session's events: a list, or a stream
// for a session created as one.
func (s *Session) EventsKey() string { return s.events }

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
		return fmt.Errorf("redis: append to session %q: %w", s.id, err)
	}
	args := make([]any, 0, 3+len(recs))
	seqField := "0"
	if s.seqField {
		seqField = "1"
	}
	args = append(args, s.maxLen, seqField, s.create.String())
	for _, r := range recs {
		args = append(args, r.Payload)
	}
	if err := appendScript.Run(ctx, s.client, []string{s.events, s.seq}, args...).Err(); err != nil {
		return wrap(fmt.Sprintf("append to session %q", s.id), err)
	}
	return nil
}

// Events returns the events after position after, in order. With
// [WithMaxLen], events trimmed from the log are not returned.
func (s *Session) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return again(func() ([]helikon.SessionEvent, error) { return eventcodec.Collect(ctx, s.each, after) })
}

// trimRetries is how many times a read that a trim overtook
// ([ErrTrimmedDuringRead]) starts over.
const trimRetries = 2

// again returns read's result, reading again from the start when a trim
// or a conversion overtook it: the events read so far are dropped, so
// nothing is returned twice or with a hole.
func again[T any](read func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := read()
		if attempt < trimRetries && (errors.Is(err, ErrTrimmedDuringRead) || errors.Is(err, errLayoutChanged)) {
			continue
		}
		return v, err
	}
}

// Snapshot returns the log projected to messages ([helikon.Project]); see
// [WithSnapshotEvery] for what it reads.
func (s *Session) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return eventcodec.Items(s.LoadProjection(ctx))
}
