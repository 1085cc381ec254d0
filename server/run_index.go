package server

import (
	"context"
	"errors"
)

// RunIndex keeps every run's record where it outlives the event log: a
// server on the in-memory log forgets its runs when it restarts, and an
// index kept beside the sessions (package server/sqliteindex, on the
// SQLite file the sessions use) lists them again. With one
// ([WithRunIndex]), the server stores each record as the run starts,
// pauses, continues and ends, GET /runs lists the index, and GET
// /agents/{name}/runs/{id} answers from it a run the event log no longer
// holds (its events are gone with the log). Implementations must be safe
// for concurrent use.
type RunIndex interface {
	// Put stores the run's record, replacing the one under its id.
	Put(ctx context.Context, info RunInfo) error
	// Run returns the record of runID, or an error wrapping
	// [ErrRunNotFound].
	Run(ctx context.Context, runID string) (RunInfo, error)
	// Runs returns the records q selects, newest first, at most q.Limit
	// (as [RunQuery.Select] selects).
	Runs(ctx context.Context, q RunQuery) ([]RunInfo, error)
}

// WithRunIndex keeps every run's record in idx as well, so the run list
// survives a restart (see [RunIndex]).
func WithRunIndex(idx RunIndex) Option { return func(c *config) { c.index = idx } }

// index stores a run's record in the run index, if there is one. A failed
// write is logged, not fatal: the event log, which every route reads,
// holds the run.
func (s *Server) index(ctx context.Context, info RunInfo) {
	if s.runIndex == nil {
		return
	}
	if err := s.runIndex.Put(context.WithoutCancel(ctx), info); err != nil {
		s.logger.ErrorContext(ctx, "server: index the run", "run", info.ID, "principal", info.Owner, "err", err)
	}
}

// indexed returns the index's record of a run the event log does not
// hold.
func (s *Server) indexed(ctx context.Context, runID string, logErr error) (RunInfo, error) {
	if s.runIndex == nil || !errors.Is(logErr, ErrRunNotFound) {
		return RunInfo{}, logErr
	}
	return s.runIndex.Run(ctx, runID)
}
