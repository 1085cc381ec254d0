package redislog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paigasus/helikon/server"
)

var _ server.RunLister = (*Log)(nil)

// MaxListedRuns bounds how many runs [Log.Runs] reads: the runs the log
// holds are bounded by the server's retention, and this bounds the work of
// one listing when they are not.
const MaxListedRuns = 10_000

// Runs returns the runs q selects, newest first (GET /runs). It scans the
// log's run records under its prefix, so it costs one read per run the log
// holds, up to [MaxListedRuns]; a running or queued run whose replica's
// lease has expired reads as interrupted, as with [Log.Info].
func (l *Log) Runs(ctx context.Context, q server.RunQuery) ([]server.RunInfo, error) {
	head, tail := l.prefix+"run:{", "}:info"
	var ids []string
	err := l.guard(ctx, func(ctx context.Context) error {
		iter := l.client.Scan(ctx, 0, globEscape(l.prefix)+"run:{*}:info", 500).Iterator()
		for iter.Next(ctx) && len(ids) < MaxListedRuns {
			key := iter.Val()
			if id, ok := strings.CutPrefix(key, head); ok && strings.HasSuffix(id, tail) {
				ids = append(ids, strings.TrimSuffix(id, tail))
			}
		}
		return iter.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("redislog: list runs: %w", err)
	}
	out := make([]server.RunInfo, 0, len(ids))
	for _, id := range ids {
		info, err := l.Info(ctx, id)
		switch {
		case errors.Is(err, server.ErrRunNotFound):
			continue // pruned since the scan
		case err != nil:
			return nil, err
		}
		out = append(out, info)
	}
	return q.Select(out), nil
}

// globEscape escapes the characters a Redis MATCH pattern gives a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
