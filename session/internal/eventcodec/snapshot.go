package eventcodec

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/paigasus/helikon"
)

// SnapshotStore is where a backend keeps a session's compacted snapshot:
// its projection as of a position, as the JSON of a [helikon.Projection].
type SnapshotStore interface {
	// ReadSnapshot returns the stored snapshot, or nil when there is none.
	ReadSnapshot(ctx context.Context) ([]byte, error)
	// WriteSnapshot stores the snapshot at seq unless one at a later
	// position is already stored.
	WriteSnapshot(ctx context.Context, seq int64, payload []byte) error
}

// EventsFunc reads a log's events after a position, as
// [helikon.Session.Events] does.
type EventsFunc func(context.Context, helikon.SequenceID) ([]helikon.SessionEvent, error)

// EachFunc reads a log's events after a position, in order, handing each
// to fn as it is decoded, so that a load folds a long log without holding
// its events; an error from fn ends the read with that error.
type EachFunc func(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error

// Each turns an [EventsFunc] into an [EachFunc].
func Each(events EventsFunc) EachFunc {
	return func(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
		evs, err := events(ctx, after)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return err
			}
		}
		return nil
	}
}

// Collect reads the events after a position with each, into a slice.
func Collect(ctx context.Context, each EachFunc, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	events := []helikon.SessionEvent{}
	err := each(ctx, after, func(ev helikon.SessionEvent) error {
		events = append(events, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

// LoadProjection reads the snapshot, then the events after it, and folds
// them in as they are read; with a nil store it folds the whole log. When
// it folded at least every events (every > 0), it stores the new
// projection as the snapshot, so that the next cold load folds fewer; a
// failure to store it is logged, since the log stays the authority and
// the load succeeded.
func LoadProjection(ctx context.Context, store SnapshotStore, each EachFunc, every int) (*helikon.Projection, error) {
	p := &helikon.Projection{}
	if store != nil {
		payload, err := store.ReadSnapshot(ctx)
		if err != nil {
			return nil, err
		}
		if payload != nil {
			if p, err = decodeSnapshot(payload); err != nil {
				return nil, fmt.Errorf("decode snapshot: %w", err)
			}
		}
	}
	folded := 0
	err := each(ctx, p.Seq(), func(ev helikon.SessionEvent) error {
		p.Apply(ev)
		folded++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if store != nil && every > 0 && folded >= every {
		if err := save(ctx, store, p); err != nil {
			slog.WarnContext(ctx, "helikon: session snapshot not stored; the next load folds more events", "err", err)
		}
	}
	return p, nil
}

// SaveSnapshot stores the projection of the whole log as the snapshot.
func SaveSnapshot(ctx context.Context, store SnapshotStore, each EachFunc) error {
	p, err := LoadProjection(ctx, store, each, 0)
	if err != nil {
		return err
	}
	return save(ctx, store, p)
}

func save(ctx context.Context, store SnapshotStore, p *helikon.Projection) error {
	if p.Seq() == helikon.Beginning {
		return nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	return store.WriteSnapshot(ctx, int64(p.Seq()), data)
}

// Items returns the messages of a loaded projection, or the load's error.
func Items(p *helikon.Projection, err error) ([]helikon.Item, error) {
	if err != nil {
		return nil, err
	}
	return p.Items(), nil
}

// decodeSnapshot restores a stored projection with the one-pass decoder,
// without encoding/json's two scans of the whole payload first, falling
// back to the projection's own UnmarshalJSON for a payload it does not
// handle.
func decodeSnapshot(payload []byte) (*helikon.Projection, error) {
	if seq, items, ok := decodeProjection(payload); ok {
		return helikon.NewProjection(items, seq), nil
	}
	p := &helikon.Projection{}
	if err := json.Unmarshal(payload, p); err != nil {
		return nil, err
	}
	return p, nil
}
