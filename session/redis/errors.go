package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
)

// ErrEmptyID reports a session opened without an id.
var ErrEmptyID = errors.New("redis: session id is empty")

// ErrSequenceLost reports a session stored as a stream whose sequence
// counter is gone while the stream remains, as happens when an eviction
// policy drops the counter key. Appending would reuse sequence ids, so the
// append is refused and nothing is stored. (A process of a version before
// lists gets it too, from its own append script, on a session stored as a
// list: see the package documentation.)
var ErrSequenceLost = errors.New("redis: session sequence counter lost")

// scriptErrors are the error codes the package's scripts reply with, and
// the errors they stand for.
var scriptErrors = []struct {
	code string
	err  error
}{
	{"HELIKON_SEQ_LOST", ErrSequenceLost},
	{"HELIKON_TOO_LONG", ErrTooLongToConvert},
	{"HELIKON_BAD_ENTRY", helikon.ErrSessionCorrupt},
	{"HELIKON_BAD_ITEM", helikon.ErrSessionCorrupt},
}

// wrap adds op (what failed) to err, and the error a script's reply code
// stands for. A failure that is neither the server's reply nor the
// caller's context (a refused or broken connection, a pool timeout) also
// matches [helikon.ErrSessionUnavailable].
func wrap(op string, err error) error {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("redis: %s: %w", op, err)
		}
		return fmt.Errorf("redis: %s: %w: %w", op, helikon.ErrSessionUnavailable, err)
	}
	for _, se := range scriptErrors {
		if strings.HasPrefix(rerr.Error(), se.code) {
			return fmt.Errorf("redis: %s: %w: %w", op, se.err, err)
		}
	}
	return fmt.Errorf("redis: %s: %w", op, err)
}

// ErrTrimmedDuringRead reports a read of a capped log ([WithMaxLen])
// that appends by another handle trimmed while it was under way, between
// two of its pages: the events it had returned and the ones after the
// trim are not one contiguous part of the log. Events and the session's
// loads read again from the start, twice at most, before they return it.
var ErrTrimmedDuringRead = errors.New("redis: session log trimmed during a read")
